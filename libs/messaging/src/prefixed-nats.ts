import type { Server as HttpServer } from 'node:http';
import { ClientNats, ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { Msg, NatsConnection, Subscription } from 'nats';
import { Observability, type PartHealth } from '@corridor/contracts';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { continueFromCarrier, SpanKind } from '@corridor/telemetry';
import { startHealthServer } from './health-server';
import { natsMetrics } from './nats-metrics';

// Subjects in libs/contracts are written without the deployment prefix; these two transport
// subclasses add it in normalizePattern, which Nest calls for every pattern it registers or
// sends, so controllers keep writing @MessagePattern(subjects.customers.customer.create).

type NatsClientOptions = NonNullable<NatsOptions['options']>;

export const prefixSubject = (prefix: string, subject: string): string => `${prefix}.${subject}`;

export type PrefixedServerOptions = {
  subjectPrefix: string;
  logger: Logger;
  healthPort?: number;
  /** The service name /health reports. */
  service?: string;
  /** Upper bound on how long close() waits for handlers still running. */
  drainTimeoutMs?: number;
};

export class PrefixedServerNats extends ServerNats {
  private inFlight = 0;
  private healthServer?: HttpServer;
  /** What the health server reports; createServiceApp sets the app's own once Nest has built it. */
  observability = new Observability();

  constructor(
    options: NatsClientOptions,
    private readonly prefixed: PrefixedServerOptions,
  ) {
    super(options);
  }

  override normalizePattern(pattern: unknown): string {
    return prefixSubject(this.prefixed.subjectPrefix, super.normalizePattern(pattern as string));
  }

  // The channel Nest passes here is the subscription subject, already prefixed; normalizing it
  // again would prefix it twice.
  override getHandlerByPattern(channel: string) {
    return this.messageHandlers.get(channel) ?? null;
  }

  // The caller's ids and trace context come in the message headers (ServiceClient writes them):
  // the handler, its log lines, its events and the requests it sends in turn continue that story.
  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const read = (name: string) => natsMsg.headers?.get(name) || undefined;
    const requestId = randomUUID();
    const subject = this.unprefixed(channel);
    return continueFromCarrier(
      read,
      { requestId, correlationId: requestId },
      {
        name: `nats handle ${subject}`,
        kind: SpanKind.SERVER,
        attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
      },
      () => super.handleMessage(channel, natsMsg),
    );
  }

  // Counts requests until their final reply so close() can let them finish instead of
  // dropping replies mid-flight; the final reply also closes the handler's histogram sample.
  override getPublisher(natsMsg: Msg, id: string, ctx: never) {
    const publish = super.getPublisher(natsMsg, id, ctx);
    if (!natsMsg.reply) return publish;
    this.inFlight += 1;
    let finished = false;
    const span = trace.getActiveSpan();
    const stopTimer = natsMetrics().handlers.startTimer({ subject: this.unprefixed(natsMsg.subject) });
    return (response: { isDisposed?: boolean; err?: unknown }) => {
      if (!finished && (response.isDisposed || response.err !== undefined)) {
        finished = true;
        this.inFlight -= 1;
        const failed = response.err !== undefined && response.err !== null;
        const seconds = stopTimer({ outcome: failed ? 'error' : 'ok' });
        if (failed) span?.setStatus({ code: SpanStatusCode.ERROR, message: errorCodeOf(response.err) });
        // A service's access log, at debug: one line per request answered, with the caller's ids (the logger's mixin).
        this.prefixed.logger.debug(
          {
            subject: this.unprefixed(natsMsg.subject),
            outcome: failed ? errorCodeOf(response.err) : 'ok',
            latencyMs: Math.round(seconds * 1000),
          },
          'NATS request answered.',
        );
      }
      return publish(response);
    };
  }

  private unprefixed(subject: string): string {
    const prefix = `${this.prefixed.subjectPrefix}.`;
    return subject.startsWith(prefix) ? subject.slice(prefix.length) : subject;
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    await super.listen((error?: unknown) => {
      if (error) return callback(error);
      // The subscriptions are written to the connection; a flush (a PING answered after them) waits
      // until the server has them, so a request sent as soon as listen() returns finds a responder
      // instead of NoResponders (seen on a loaded machine).
      const { natsClient } = this as unknown as { natsClient?: { flush(): Promise<void> } };
      const subscribed = natsClient ? natsClient.flush() : Promise.resolve();
      subscribed
        .then(async () => {
          if (this.prefixed.healthPort === undefined) return;
          this.healthServer = await startHealthServer({
            service: this.prefixed.service ?? 'service',
            port: this.prefixed.healthPort,
            observability: this.observability,
            logger: this.prefixed.logger,
          });
        })
        .then(() => callback(), callback);
    });
  }

  override async close(): Promise<void> {
    // ServerNats keeps its subscriptions private; stopping intake first is what lets in-flight
    // requests finish without new ones arriving.
    const { subscriptions } = this as unknown as { subscriptions: Subscription[] };
    for (const subscription of subscriptions) subscription.unsubscribe();
    const deadline = Date.now() + (this.prefixed.drainTimeoutMs ?? 10_000);
    while (this.inFlight > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise<void>((resolve) => (this.healthServer ? this.healthServer.close(() => resolve()) : resolve()));
    await super.close();
  }

  /** The `nats` health part: a round trip to the server (rtt), down once the connection is closed. */
  async natsHealth(): Promise<PartHealth> {
    let connection: NatsConnection;
    try {
      connection = this.unwrap<NatsConnection>();
    } catch {
      return { status: 'down', error: 'not connected yet' };
    }
    if (connection.isClosed()) return { status: 'down', error: 'connection closed' };
    if (connection.isDraining()) return { status: 'down', error: 'connection draining (shutting down)' };
    const rttMs = await connection.rtt();
    return { status: 'ok', server: connection.getServer(), rttMs };
  }
}

const errorCodeOf = (error: unknown): string =>
  typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : 'error';

export class PrefixedClientNats extends ClientNats {
  constructor(
    options: NatsClientOptions,
    private readonly subjectPrefix: string,
  ) {
    super(options);
  }

  override normalizePattern(pattern: unknown): string {
    return prefixSubject(this.subjectPrefix, super.normalizePattern(pattern as string));
  }
}
