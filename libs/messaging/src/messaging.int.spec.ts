// Pins down the NATS wiring every service relies on: prefixed subjects, queue groups, error
// round trips, trace ids in headers, prompt failure when nobody answers, and durable consumers.
import { Controller, type DynamicModule, type INestMicroservice, Inject, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { connect, type NatsConnection } from 'nats';
import { DomainError, type RequestContext, type ServiceRequest } from '@corridor/contracts';
import {
  createTestSchema,
  requireNats,
  requirePostgres,
  uniqueSubjectPrefix,
  type TestSchema,
  useTestDatabase,
  waitUntil,
} from '@corridor/testing';
import { contextCarrier, currentContext, runWithContext, type TelemetryContext } from '@corridor/telemetry';
import { createLogger, createProcessedStore, createServiceApp, publishEvent, ServiceClient, startDurableConsumer } from './index';

const database = useTestDatabase();

const INSTANCE = 'INSTANCE';

@Controller()
class EchoController {
  constructor(@Inject(INSTANCE) private readonly instance: string) {}

  @MessagePattern('echo.test.who')
  who() {
    return { instance: this.instance };
  }

  @MessagePattern('echo.test.fail')
  fail(@Payload() request: ServiceRequest<{ customerId: string }>) {
    throw new DomainError('USER_NOT_FOUND', 'not_found', `Customer ${request.data.customerId} was not found.`, {
      customerId: request.data.customerId,
    });
  }

  @MessagePattern('echo.test.crash')
  crash() {
    throw new Error('database password is hunter2');
  }

  @MessagePattern('echo.test.trace')
  async trace(@Payload() request: ServiceRequest<unknown>) {
    await new Promise((resolve) => setImmediate(resolve));
    return { ids: currentContext(), contextRequestId: request.context.requestId, contextCausationId: request.context.causationId };
  }

  @MessagePattern('echo.test.slow')
  async slow() {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return { late: true };
  }
}

@Module({})
class EchoModule {
  static of(instance: string): DynamicModule {
    return { module: EchoModule, controllers: [EchoController], providers: [{ provide: INSTANCE, useValue: instance }] };
  }
}

const context = (requestId = 'req-1'): RequestContext => ({
  platformId: 'Platform:test',
  actor: { kind: 'system', name: 'test' },
  requestId,
  correlationId: `corr-${requestId}`,
});

describe('request-reply over prefixed NATS subjects', () => {
  const subjectPrefix = uniqueSubjectPrefix();
  let natsUrl: string;
  const apps: INestMicroservice[] = [];
  let client: ServiceClient;

  beforeAll(async () => {
    natsUrl = await requireNats();
    for (const instance of ['a', 'b']) {
      const app = await createServiceApp(EchoModule.of(instance), { service: 'echo', natsUrl, subjectPrefix, logLevel: 'silent' });
      await app.listen();
      apps.push(app);
    }
    client = new ServiceClient({ natsUrl, subjectPrefix, name: 'test-client' });
    await client.onApplicationBootstrap();
  });

  afterAll(async () => {
    await client?.close();
    await Promise.all(apps.map((app) => app.close()));
  });

  it('spreads requests over the replicas of one queue group', async () => {
    const replies = await Promise.all(
      Array.from({ length: 40 }, () => client.request<{ instance: string }>('echo.test.who', {}, { context: context() })),
    );
    const instances = new Set(replies.map((reply) => reply.instance));
    expect([...instances].sort()).toEqual(['a', 'b']);
  });

  it('rebuilds a DomainError with its code, status, message and details', async () => {
    const failure = client.request('echo.test.fail', { customerId: 'Customer:1' }, { context: context() });
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    await expect(failure).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
      status: 404,
      message: 'Customer Customer:1 was not found.',
      details: { customerId: 'Customer:1' },
    });
  });

  it('turns an unexpected error into INTERNAL_ERROR without leaking it', async () => {
    const failure = client.request('echo.test.crash', {}, { context: context() });
    await expect(failure).rejects.toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    await expect(failure).rejects.not.toMatchObject({ message: expect.stringContaining('hunter2') });
  });

  it('runs the handler with the request and correlation ids from the NATS headers', async () => {
    const reply = await client.request<{ ids: unknown; contextRequestId: string }>('echo.test.trace', {}, { context: context('req-42') });
    expect(reply).toEqual({
      ids: { requestId: 'req-42', correlationId: 'corr-req-42', causationId: 'req-42', platformId: 'Platform:test' },
      contextRequestId: 'req-42',
      contextCausationId: 'req-42',
    });
  });

  it('names the work that sent a request as its cause, in the headers and in the context the handler gets', async () => {
    const sender = { requestId: 'Event:7', correlationId: 'corr-req-43', causationId: 'Event:7' };
    const reply = await runWithContext(sender, () =>
      client.request<{ ids: TelemetryContext; contextCausationId: string }>('echo.test.trace', {}, { context: context('req-43') }),
    );
    expect(reply.ids).toMatchObject({ requestId: 'req-43', correlationId: 'corr-req-43', causationId: 'Event:7' });
    expect(reply.contextCausationId).toBe('Event:7');
  });

  it('answers the health ping of the service', async () => {
    await expect(client.request('echo.health.ping', {}, { context: context() })).resolves.toEqual({ service: 'echo', status: 'ok' });
  });

  it('fails with SERVICE_UNAVAILABLE when no service listens on the subject', async () => {
    // The jest timeout is far above the 30 s request timeout given here, so only the
    // "no responders" path can make this pass in time.
    const failure = client.request('nobody.test.here', {}, { context: context(), timeoutMs: 30_000 });
    await expect(failure).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: 'nobody is not answering; retry shortly.',
    });
  }, 10_000);

  it('fails with SERVICE_UNAVAILABLE when the service does not answer in time', async () => {
    const failure = client.request('echo.test.slow', {}, { context: context(), timeoutMs: 100 });
    await expect(failure).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  });

  it('keeps services of another subject prefix apart', async () => {
    const other = new ServiceClient({ natsUrl, subjectPrefix: uniqueSubjectPrefix(), name: 'other-client' });
    await other.onApplicationBootstrap();
    try {
      await expect(other.request('echo.test.who', {}, { context: context() })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await other.close();
    }
  });

  it('delivers a broadcast to every subscriber', async () => {
    const seen: unknown[] = [];
    const first = await client.subscribe('echo.test.revoked', (data) => seen.push(['first', data]));
    const second = await client.subscribe('echo.test.revoked', (data) => seen.push(['second', data]));
    await client.broadcast('echo.test.revoked', { tokenId: 'Token:1' });
    await waitUntil('both subscribers', () => seen.length === 2, 10_000);
    expect(seen).toEqual(
      expect.arrayContaining([
        ['first', { tokenId: 'Token:1' }],
        ['second', { tokenId: 'Token:1' }],
      ]),
    );
    first.unsubscribe();
    second.unsubscribe();
  });
});

describe('durable JetStream consumer', () => {
  const subjectPrefix = uniqueSubjectPrefix();
  const stream = `${subjectPrefix}_EVENTS`;
  let nc: NatsConnection;
  let schema: TestSchema;

  beforeAll(async () => {
    nc = await connect({ servers: await requireNats() });
    await requirePostgres();
    schema = await createTestSchema(database.url);
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: stream, subjects: [`${subjectPrefix}.events.>`] });
  });

  afterAll(async () => {
    const jsm = await nc?.jetstreamManager();
    await jsm?.streams.delete(stream).catch(() => undefined);
    await nc?.close();
    await schema?.drop();
  });

  it('resumes after a restart without reprocessing, skipping messages already recorded', async () => {
    const js = nc.jetstream();
    const store = createProcessedStore({ connectionString: database.url, schema: schema.schema, consumer: 'test-consumer' });
    const handled: string[] = [];
    let failuresLeft = 1;
    const start = () =>
      startDurableConsumer({
        nc,
        stream,
        durable: 'test-consumer',
        filterSubject: `${subjectPrefix}.events.customers.>`,
        logger: createLogger('test-consumer', { level: 'silent' }),
        isProcessed: store.isProcessed,
        markProcessed: store.markProcessed,
        handle: async (payload, meta) => {
          // The first attempt at e2 fails once, which must lead to a redelivery, not a loss.
          if (meta.msgId === 'e2' && failuresLeft-- > 0) throw new Error('transient');
          handled.push(`${meta.msgId}:${(payload as { n: number }).n}`);
        },
      });
    const publish = (id: string, n: number, service = 'customers') =>
      publishEvent(js, `${subjectPrefix}.events.${service}.Customer.CustomerCreated`, { n }, id);
    try {
      await publish('e1', 1);
      await publish('e2', 2);
      await publish('x1', 0, 'platform');
      await publish('e3', 3);
      const first = await start();
      await waitUntil('the first three events', () => handled.length === 3, 10_000);
      await first.stop();

      await publish('e4', 4);
      await publish('e5', 5);
      await publish('e1', 1); // JetStream drops a republished id within its duplicate window.
      await store.markProcessed('e4'); // As if a crash happened between handling e4 and its ack.
      const second = await start();
      await waitUntil('the events published while stopped', () => handled.length >= 4, 10_000);
      await second.stop();
      // A nak'd message comes back after its delay, so e2 may land after e3.
      expect([...handled].sort()).toEqual(['e1:1', 'e2:2', 'e3:3', 'e5:5']);
      expect(await store.isProcessed('e5')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('handles messages concurrently when asked, each key still in stream order, and waits for them on stop', async () => {
    const js = nc.jetstream();
    const subject = `${subjectPrefix}.events.cards.Card.CardUpdated`;
    const handled: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    for (let n = 0; n < 24; n += 1) await publishEvent(js, subject, { key: `k${n % 3}`, n }, `c${n}`);
    const consumer = await startDurableConsumer({
      nc,
      stream,
      durable: 'test-concurrent-consumer',
      filterSubject: subject,
      logger: createLogger('test-concurrent-consumer', { level: 'silent' }),
      concurrency: 8,
      keyOf: (payload) => (payload as { key: string }).key,
      handle: async (payload) => {
        const { key, n } = payload as { key: string; n: number };
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        // Later messages finish first when they can: only the key's order may hold them back.
        await new Promise((resolve) => setTimeout(resolve, 30 - n));
        handled.push(`${key}:${n}`);
        inFlight -= 1;
      },
    });
    await waitUntil('all 24 messages', () => handled.length === 24, 10_000);
    await consumer.stop();
    // Three keys, so three at a time at most: one per key.
    expect(maxInFlight).toBe(3);
    for (const key of ['k0', 'k1', 'k2']) {
      const ofKey = handled.filter((entry) => entry.startsWith(`${key}:`)).map((entry) => Number(entry.split(':')[1]));
      expect(ofKey).toEqual([...ofKey].sort((a, b) => a - b));
    }
  });

  it('without a key runs up to `concurrency` handlers at once', async () => {
    const js = nc.jetstream();
    const subject = `${subjectPrefix}.events.cards.Card.CardIssued`;
    let inFlight = 0;
    let maxInFlight = 0;
    let handled = 0;
    for (let n = 0; n < 20; n += 1) await publishEvent(js, subject, { n }, `u${n}`);
    const consumer = await startDurableConsumer({
      nc,
      stream,
      durable: 'test-unkeyed-consumer',
      filterSubject: subject,
      logger: createLogger('test-unkeyed-consumer', { level: 'silent' }),
      concurrency: 5,
      handle: async () => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight -= 1;
        handled += 1;
      },
    });
    await waitUntil('all 20 messages', () => handled === 20, 10_000);
    await consumer.stop();
    expect(maxInFlight).toBe(5);
  });

  it("runs each handler inside the context the message carries, or the envelope's when it carries none", async () => {
    const js = nc.jetstream();
    const subject = `${subjectPrefix}.events.payments.Transaction.TransactionCompleted`;
    const carried = contextCarrier({
      requestId: 'req-http-1',
      correlationId: 'corr-http-1',
      causationId: 'Event:with-headers',
      platformId: 'Platform:a',
    });
    await publishEvent(js, subject, { eventId: 'Event:with-headers', correlationId: 'ignored', platformId: 'Platform:a' }, 'h1', carried);
    await publishEvent(js, subject, { eventId: 'Event:old', correlationId: 'corr-old', platformId: 'Platform:b' }, 'h2');
    const seen: (TelemetryContext | undefined)[] = [];
    const consumer = await startDurableConsumer({
      nc,
      stream,
      durable: 'test-context-consumer',
      filterSubject: subject,
      logger: createLogger('test-context-consumer', { level: 'silent' }),
      handle: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(currentContext());
      },
    });
    await waitUntil('both messages', () => seen.length === 2, 10_000);
    await consumer.stop();
    expect(seen).toEqual([
      { requestId: 'req-http-1', correlationId: 'corr-http-1', causationId: 'Event:with-headers', platformId: 'Platform:a' },
      { requestId: 'h2', correlationId: 'corr-old', causationId: 'Event:old', platformId: 'Platform:b' },
    ]);
  });
});
