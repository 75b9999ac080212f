// Runs the webhooks service in-process on real PostgreSQL, NATS and Redis with a clock the test
// moves: the retry schedule (500,500,500,200 → four sends with growing gaps), no retry after 409,
// a receiver down for the whole 7 days ending FAILED with the row kept, per-resource order, one
// delivery per event even when the event comes again after the job is gone, private targets
// refused without the deployment's opt-in, fairness (a per-platform cap and a circuit breaker
// against an endpoint that never answers), and the metrics. The receivers listen on loopback, so
// the service runs with WEBHOOK_ALLOW_PRIVATE_TARGETS=true unless a test says otherwise.
import type { INestMicroservice } from '@nestjs/common';
import {
  type InternalAccountWire,
  newId,
  type Page,
  type RequestContext,
  subjects,
  type WebhookAttemptWire,
  type WebhookDeliveryWire,
} from '@corridor/contracts';
import { inTransaction } from '@corridor/event-store';
import { createServiceApp, publishEvent, ServiceClient } from '@corridor/messaging';
import {
  createControllableClock,
  createConformance,
  freePort,
  requireNats,
  requireRedis,
  uniqueRedisPrefix,
  uniqueSubjectPrefix,
  until,
  useTestDatabase,
} from '@corridor/testing';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import { AppModule } from '../app.module';
import { loadConfig, type WebhooksServiceConfig } from '../config';
import { insertDeliveries } from './delivery-store';
import { Dispatcher } from './dispatcher';
import { renderWebhookBody, webhookIdFor } from './webhook-envelope';

const database = useTestDatabase();
const clock = createControllableClock(new Date('2026-02-01T00:00:00.000Z'));
const codec = JSONCodec();
const conformance = createConformance();

let app: INestMicroservice;
let client: ServiceClient;
let dispatcher: Dispatcher;
let nats: NatsConnection;
let subjectPrefix: string;
let metricsUrl: string;
let config: WebhooksServiceConfig;

type Hit = { id: string; type: string; resourceId: string; balance: number; at: Date };
const hits: Hit[] = [];
/** Per webhook id, the statuses to answer in turn (then 200). */
const script = new Map<string, number[]>();
let receiver: Server;
let receiverUrl: string;

const contextOf = (platformId: string): RequestContext => ({
  platformId,
  actor: { kind: 'system', name: 'test' },
  requestId: randomUUID(),
  correlationId: randomUUID(),
});
const deliveriesOf = async (platformId: string, filter: { resourceId?: string; webhookId?: string }) =>
  (
    await client.request<Page<WebhookDeliveryWire>>(
      subjects.webhooks.delivery.list,
      { ...filter, limit: 100 },
      { context: contextOf(platformId) },
    )
  ).data;
const attemptsOf = async (platformId: string, webhookId: string) =>
  (
    await client.request<{ data: WebhookAttemptWire[] }>(
      subjects.webhooks.delivery.attempts,
      { webhookId },
      { context: contextOf(platformId) },
    )
  ).data;

const publish = (
  service: string,
  aggregate: string,
  type: string,
  streamId: string,
  streamPosition: number,
  platformId: string,
  data: Record<string, unknown> = {},
  eventId = uuidv7(),
) =>
  publishEvent(
    nats.jetstream(),
    `${subjectPrefix}.events.${service}.${aggregate}.${type}`,
    { eventId, type, streamId, streamPosition, occurredAt: clock.now().toISOString(), platformId, correlationId: eventId, data },
    randomUUID(),
  );

/** The account as accounts renders it; its balance is the stream position, so order is visible. */
const accountWire = (accountId: string, balance: number): InternalAccountWire => {
  const usd = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };
  return {
    id: accountId,
    type: 'INTERNAL_FIAT',
    status: 'ACTIVE',
    balance: { amount: balance, currency: usd } as never,
    totalBalance: { amount: balance, currency: usd } as never,
    fundingPaymentInstructions: [],
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
};

const newPlatform = async (endpoint: string): Promise<string> => {
  const platformId = newId('Platform');
  await publish('platform', 'Platform', 'PlatformCreated', platformId, 1, platformId, {
    platformId,
    environment: 'SANDBOX',
    settings: { webhookEndpoint: endpoint },
  });
  // The automatic TEST of a configured endpoint is the sign the platform is known.
  await until(
    'the platform TEST',
    () => deliveriesOf(platformId, { resourceId: platformId }),
    (rows) => rows.some((row) => row.status !== 'PENDING'),
  );
  return platformId;
};

const credit = (platformId: string, accountId: string, position: number, eventId?: string) =>
  publish('accounts', 'InternalAccount', 'AccountCredited', accountId, position, platformId, { accountId }, eventId);

/** Moves the clock to the delivery's next attempt and lets the dispatcher send it. */
const advanceToNextAttempt = async (platformId: string, webhookId: string): Promise<void> => {
  const [row] = await deliveriesOf(platformId, { webhookId });
  if (!row?.nextAttemptAt) throw new Error(`${webhookId} has no next attempt.`);
  clock.set(new Date(row.nextAttemptAt));
  await dispatcher.tick();
};

beforeAll(async () => {
  await Promise.all([requireNats(), requireRedis()]);
  subjectPrefix = uniqueSubjectPrefix();
  const healthPort = await freePort();
  metricsUrl = `http://127.0.0.1:${healthPort}/metrics`;
  config = {
    ...loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }),
    databaseUrl: database.url,
    subjectPrefix,
    healthPort,
    logLevel: 'error',
    redisKeyPrefix: uniqueRedisPrefix(),
    tickIntervalMs: 0,
    requestTimeoutMs: 2_000,
    // Small enough that one platform's hanging endpoint would take every slot without its cap.
    concurrency: 4,
    platformConcurrency: 2,
    breakerTimeouts: 2,
    breakerOpenMs: 60_000,
  };
  nats = await connect({ servers: config.natsUrl, name: 'webhooks-int-spec' });
  // The accounts service's render-at, answered here: the balance is the stream position, so order is visible.
  nats.subscribe(`${subjectPrefix}.${subjects.accounts.internalAccount.renderAt}`, {
    callback: (_error, message) => {
      const packet = codec.decode(message.data) as { id: string; data: { data: { accountId: string; streamPosition: number } } };
      const { accountId, streamPosition } = packet.data.data;
      message.respond(codec.encode({ id: packet.id, response: accountWire(accountId, streamPosition), isDisposed: true }));
    },
  });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: string;
        type: string;
        data: { id?: string; balance?: { amount: number } };
      };
      conformance.checkWebhook(body);
      hits.push({ id: body.id, type: body.type, resourceId: body.data.id ?? '', balance: body.data.balance?.amount ?? 0, at: clock.now() });
      const statuses = script.get(body.id) ?? [];
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  app = await createServiceApp(AppModule.register(config, { clock }), {
    service: 'webhooks',
    natsUrl: config.natsUrl,
    subjectPrefix,
    healthPort,
    logLevel: 'error',
  });
  await app.listen();
  client = app.get(ServiceClient);
  dispatcher = app.get(Dispatcher);
});

afterAll(async () => {
  await app?.close();
  await nats?.drain();
  await new Promise((resolve) => receiver?.close(resolve));
});

it('retries 500, 500, 500 then stops at the 200: four sends with growing gaps on the test clock', async () => {
  const platformId = await newPlatform(receiverUrl);
  const accountId = newId('InternalAccount');
  const eventId = uuidv7();
  // The webhook id is derived from (event, platform), so the receiver's answers are armed before the first send.
  const webhookId = webhookIdFor(eventId, platformId);
  script.set(webhookId, [500, 500, 500]);
  await credit(platformId, accountId, 2, eventId);
  await until(
    'the delivery row',
    () => deliveriesOf(platformId, { webhookId }),
    (rows) => rows.length === 1,
  );
  for (let sent = 1; sent < 4; sent += 1) {
    await until(
      `attempt ${sent}`,
      () => attemptsOf(platformId, webhookId),
      (attempts) => attempts.length === sent,
    );
    await advanceToNextAttempt(platformId, webhookId);
  }
  const attempts = await until(
    'the fourth attempt',
    () => attemptsOf(platformId, webhookId),
    (rows) => rows.length === 4,
  );
  expect(attempts.map((attempt) => attempt.statusCode)).toEqual([500, 500, 500, 200]);
  const times = attempts.map((attempt) => Date.parse(attempt.at));
  const gaps = times.slice(1).map((time, index) => time - times[index]!);
  expect(gaps).toEqual([10_000, 20_000, 40_000]);
  expect(hits.filter((hit) => hit.id === webhookId)).toHaveLength(4);
  const [row] = await deliveriesOf(platformId, { webhookId });
  expect(row).toMatchObject({ status: 'DELIVERED', attemptCount: 4, lastStatusCode: 200 });
});

it('stops at a 409: the receiver already has it, so it counts as delivered', async () => {
  const platformId = await newPlatform(receiverUrl);
  const accountId = newId('InternalAccount');
  const eventId = uuidv7();
  const webhookId = webhookIdFor(eventId, platformId);
  script.set(webhookId, [409]);
  await credit(platformId, accountId, 2, eventId);
  const [row] = await until(
    'the 409 delivery',
    () => deliveriesOf(platformId, { webhookId }),
    (rows) => rows[0]?.status === 'DELIVERED',
  );
  expect(row).toMatchObject({ attemptCount: 1, lastStatusCode: 409 });
  clock.advance(60 * 60 * 1000);
  await dispatcher.tick();
  expect(await attemptsOf(platformId, webhookId)).toHaveLength(1);
});

it('records FAILED, row and every attempt kept, when the receiver is down for the whole 7 days', async () => {
  const closedPort = await freePort();
  const platformId = newId('Platform');
  await publish('platform', 'Platform', 'PlatformCreated', platformId, 1, platformId, {
    platformId,
    environment: 'SANDBOX',
    settings: { webhookEndpoint: `http://127.0.0.1:${closedPort}/down` },
  });
  const accountId = newId('InternalAccount');
  await credit(platformId, accountId, 2);
  const [first] = await until(
    'the delivery row',
    () => deliveriesOf(platformId, { resourceId: accountId }),
    (rows) => rows.length === 1,
  );
  const webhookId = first!.webhookId;
  // The attempt log is written in the same transaction as the row's next attempt time, so a new
  // log entry means the row is ready for the clock to move to its next attempt.
  let recorded = (
    await until(
      'the first attempt',
      () => attemptsOf(platformId, webhookId),
      (attempts) => attempts.length === 1,
    )
  ).length;
  for (let guard = 0; guard < 1_000; guard += 1) {
    const [row] = await deliveriesOf(platformId, { webhookId });
    if (row!.status === 'FAILED') break;
    await advanceToNextAttempt(platformId, webhookId);
    recorded = (
      await until(
        'the next attempt',
        () => attemptsOf(platformId, webhookId),
        (attempts) => attempts.length > recorded,
      )
    ).length;
  }
  const [row] = await deliveriesOf(platformId, { webhookId });
  expect(row).toMatchObject({ status: 'FAILED', retried: true });
  const attempts = await attemptsOf(platformId, webhookId);
  expect(attempts.length).toBe(row!.attemptCount);
  expect(attempts.length).toBeGreaterThan(300);
  expect(attempts.every((attempt) => attempt.statusCode === undefined && attempt.error)).toBe(true);
  const span = Date.parse(attempts.at(-1)!.at) - Date.parse(attempts[0]!.at);
  expect(span).toBeLessThanOrEqual(7 * 24 * 60 * 60 * 1000);
  expect(span).toBeGreaterThan(7 * 24 * 60 * 60 * 1000 - 30 * 60 * 1000);
}, 120_000);

it('keeps per-resource order: a later webhook waits while an earlier one of the same resource is retried', async () => {
  const platformId = await newPlatform(receiverUrl);
  const slow = newId('InternalAccount');
  const other = newId('InternalAccount');
  const firstEvent = uuidv7();
  script.set(webhookIdFor(firstEvent, platformId), [503]);
  await credit(platformId, slow, 2, firstEvent);
  await credit(platformId, slow, 3);
  await credit(platformId, slow, 4);
  await credit(platformId, other, 2);
  await until(
    'the other resource',
    async () => hits.filter((hit) => hit.resourceId === other).length,
    (count) => count === 1,
  );
  await until(
    'the first attempt of the slow resource',
    () => deliveriesOf(platformId, { resourceId: slow }),
    (rows) => rows.length === 3 && rows.some((row) => row.attemptCount === 1),
  );
  // Everything after the failed first webhook of `slow` is held back.
  expect(hits.filter((hit) => hit.resourceId === slow).map((hit) => hit.balance)).toEqual([2]);
  await advanceToNextAttempt(platformId, webhookIdFor(firstEvent, platformId));
  await until(
    'the slow resource to drain',
    async () => hits.filter((hit) => hit.resourceId === slow).length,
    (count) => count === 4,
  );
  expect(hits.filter((hit) => hit.resourceId === slow).map((hit) => hit.balance)).toEqual([2, 2, 3, 4]);
});

it('makes one delivery of an event published again after its job is finished and gone', async () => {
  const platformId = await newPlatform(receiverUrl);
  const accountId = newId('InternalAccount');
  const eventId = uuidv7();
  await credit(platformId, accountId, 2, eventId);
  await until(
    'the delivery',
    () => deliveriesOf(platformId, { resourceId: accountId }),
    (rows) => rows[0]?.status === 'DELIVERED',
  );
  await credit(platformId, accountId, 2, eventId);
  await credit(platformId, accountId, 3);
  await until(
    'the later event',
    () => deliveriesOf(platformId, { resourceId: accountId }),
    (rows) => rows.length === 2 && rows.every((row) => row.status === 'DELIVERED'),
  );
  expect(hits.filter((hit) => hit.resourceId === accountId).map((hit) => hit.balance)).toEqual([2, 3]);
});

it('writes nothing for an event no webhook announces, nor for one of a platform without an endpoint; marks the delivered one', async () => {
  const withEndpoint = await newPlatform(receiverUrl);
  const withoutEndpoint = newId('Platform');
  await publish('platform', 'Platform', 'PlatformCreated', withoutEndpoint, 1, withoutEndpoint, {
    platformId: withoutEndpoint,
    environment: 'SANDBOX',
    settings: {},
  });
  const [quoted, silent, announced] = [uuidv7(), uuidv7(), uuidv7()];
  await publish('payments', 'Quote', 'QuoteCreated', newId('Quote'), 1, withEndpoint, {}, quoted);
  await credit(withoutEndpoint, newId('InternalAccount'), 2, silent);
  const accountId = newId('InternalAccount');
  await credit(withEndpoint, accountId, 2, announced);
  // One consumer takes the events in order, so the ones before the delivered credit are handled by then.
  await until(
    'the credit',
    () => deliveriesOf(withEndpoint, { resourceId: accountId }),
    (rows) => rows[0]?.status === 'DELIVERED',
  );
  const pool = new Pool({ connectionString: database.url, max: 1 });
  const { rows } = await pool
    .query<{ msg_id: string }>('SELECT msg_id FROM webhooks.processed_messages WHERE msg_id = ANY($1)', [[quoted, silent, announced]])
    .finally(() => pool.end());
  expect(rows.map((row) => row.msg_id)).toEqual([announced]);
  expect(await deliveriesOf(withoutEndpoint, {})).toEqual([]);
});

describe('a deployment without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  // The setting is read at every attempt; the service runs here as a deployment without the opt-in would.
  beforeAll(() => {
    config.allowPrivateTargets = false;
  });
  afterAll(() => {
    config.allowPrivateTargets = true;
  });

  it.each(['SANDBOX', 'PRODUCTION'])('sends nothing to a %s platform whose endpoint is loopback: refused, retried', async (environment) => {
    // Published straight to the service, as an endpoint configured before the PATCH /config check or re-pointed since would be.
    const platformId = newId('Platform');
    const settings = { webhookEndpoint: receiverUrl };
    await publish('platform', 'Platform', 'PlatformCreated', platformId, 1, platformId, { platformId, environment, settings });
    const [test] = await until(
      'TEST',
      () => deliveriesOf(platformId, { resourceId: platformId }),
      (rows) => rows[0]?.status === 'FAILED',
    );
    const accountId = newId('InternalAccount');
    await credit(platformId, accountId, 2);
    const [row] = await until(
      'attempt',
      () => deliveriesOf(platformId, { resourceId: accountId }),
      (rows) => rows[0]?.attemptCount === 1,
    );
    // A retried kind keeps its schedule (the platform may fix its endpoint); the TEST is never retried.
    expect(row).toMatchObject({ status: 'PENDING', retried: true });
    for (const webhookId of [test!.webhookId, row!.webhookId]) {
      const [attempt] = await attemptsOf(platformId, webhookId);
      expect(attempt!.statusCode).toBeUndefined();
      expect(attempt!.error).toMatch(/^refused: webhookEndpoint 127\.0\.0\.1 is a loopback address \(127\.0\.0\.0\/8\); webhooks go only/);
      expect(attempt!.error).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS=true');
      expect(hits.some((hit) => hit.id === webhookId)).toBe(false);
    }
  });
});

describe('fairness', () => {
  /** An endpoint that takes every request and never answers; counts what it holds. */
  let hanging: Server;
  let hangingUrl: string;
  const held = new Set<IncomingMessage>();
  let mostHeld = 0;

  beforeAll(async () => {
    hanging = createServer((request) => {
      held.add(request);
      mostHeld = Math.max(mostHeld, held.size);
      request.on('close', () => held.delete(request));
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/never`;
  });

  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('an endpoint that never answers holds no more than its cap; another platform is delivered meanwhile; its circuit opens', async () => {
    const hostile = newId('Platform');
    const settings = { webhookEndpoint: hangingUrl };
    const created = { platformId: hostile, environment: 'SANDBOX', settings };
    await publish('platform', 'Platform', 'PlatformCreated', hostile, 1, hostile, created);
    const honest = await newPlatform(receiverUrl);
    // Six resources of the hostile platform besides its TEST, so seven deliveries could go at once; then one of the honest platform.
    for (let index = 0; index < 6; index += 1) await credit(hostile, newId('InternalAccount'), 2);
    await until(
      'the hostile endpoint to hold its cap',
      async () => held.size,
      (size) => size === 2,
    );
    const honestAccount = newId('InternalAccount');
    await credit(honest, honestAccount, 2);
    const honestHits = async () => hits.filter((hit) => hit.resourceId === honestAccount).length;
    await until("the honest platform's webhook", honestHits, (count) => count === 1);
    // The honest webhook arrived while the hostile endpoint still held its requests: it did not wait for their timeouts.
    expect(held.size).toBe(2);
    // Timeouts in a row open the circuit: the deliveries still parked are then recorded as not sent, without a request.
    const open = `corridor_webhook_circuit_state{platform_id="${hostile}",state="OPEN"} 1`;
    const text = await until(
      'the open circuit in /metrics',
      async () => (await fetch(metricsUrl)).text(),
      (body) => body.includes(open),
    );
    expect(text).toMatch(/corridor_webhook_circuit_transitions_total\{state="OPEN"\} [1-9]/);
    const rows = await until(
      'every hostile delivery',
      () => deliveriesOf(hostile, {}),
      (all) => all.length === 7,
    );
    const attemptsOfEach = () => Promise.all(rows.map((row) => attemptsOf(hostile, row.webhookId)));
    const attempts = await until('one recorded attempt of each', attemptsOfEach, (lists) => lists.every((list) => list.length === 1));
    const errors = attempts.map(([attempt]) => attempt?.error ?? '');
    const timedOut = errors.filter((error) => error === 'no answer within 2000 ms');
    const notSent = errors.filter((error) => error.startsWith("not sent: the endpoint's circuit is open after repeated timeouts"));
    expect(timedOut.length).toBeGreaterThanOrEqual(2);
    expect(notSent.length).toBeGreaterThanOrEqual(3);
    expect(timedOut.length + notSent.length).toBe(7);
    expect(mostHeld).toBe(2);
  }, 30_000);
});

it('serves Prometheus metrics: deliveries, failures, retries, queue depth and latency', async () => {
  const text = await (await fetch(metricsUrl)).text();
  expect(text).toMatch(/corridor_webhook_deliveries_total\{type="INTERNAL_ACCOUNT.BALANCE_UPDATED"\} \d+/);
  expect(text).toMatch(/corridor_webhook_failures_total\{type="INTERNAL_ACCOUNT.BALANCE_UPDATED"\} 1/);
  expect(text).toMatch(/corridor_webhook_retries_total\{type="INTERNAL_ACCOUNT.BALANCE_UPDATED"\} \d+/);
  expect(text).toMatch(/corridor_webhook_queue_depth \d+/);
  expect(text).toMatch(/corridor_webhook_delivery_latency_seconds_count \d+/);
});

it('shows a webhook no dispatcher offered (lost with a killed replica) in /health and /metrics until the sweep sends it', async () => {
  const healthOf = async () => (await (await fetch(metricsUrl.replace('/metrics', '/health'))).json()) as { parts: Record<string, any> };
  const platformId = await newPlatform(receiverUrl);
  await dispatcher.tick();
  await until('nothing due', healthOf, (health) => health.parts['delivery']?.dueHeads === 0);
  // Committed by an intake that died before its offer: nothing but the sweep (tick) will send it.
  const accountId = newId('InternalAccount');
  const eventId = uuidv7();
  const webhookId = webhookIdFor(eventId, platformId);
  const occurredAt = clock.now().toISOString();
  const pool = new Pool({ connectionString: database.url, max: 1 });
  const [id] = await inTransaction(pool, (connection) =>
    insertDeliveries(
      connection,
      [
        {
          id: webhookId,
          eventId,
          platformId,
          type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
          resourceId: accountId,
          streamPosition: 1,
          body: renderWebhookBody(webhookId, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', occurredAt, accountWire(accountId, 1)),
          retried: true,
          occurredAt,
          story: { correlationId: 'lost-offer', causationId: 'lost-offer' },
        },
      ],
      clock.now(),
    ),
  ).finally(() => pool.end());
  clock.set(new Date(clock.now().getTime() + (config.stuckAfterSeconds + 1) * 1_000));
  const stuck = (await healthOf()).parts['delivery'];
  expect(stuck).toMatchObject({ status: 'degraded', oldestWaitSeconds: config.stuckAfterSeconds + 1 });
  expect(stuck.error).toContain(`webhook ${id} has been due and first in line for ${config.stuckAfterSeconds + 1} s`);
  const gauge = (await (await fetch(metricsUrl)).text()).match(/^corridor_webhook_oldest_sendable_seconds (\S+)$/m);
  expect(Number(gauge?.[1])).toBe(config.stuckAfterSeconds + 1);
  await dispatcher.tick();
  await until(
    'the webhook sent',
    () => hits.filter((hit) => hit.resourceId === accountId).length,
    (count) => count === 1,
  );
  expect((await healthOf()).parts['delivery']).toMatchObject({ status: 'ok' });
});
