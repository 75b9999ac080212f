import { createServer, type Server as HttpServer } from 'node:http';
import { ClientNats, ServerNats, type NatsOptions } from '@nestjs/microservices';
import type { Msg, Subscription } from 'nats';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER, runWithContext } from './context';

// Subjects in libs/contracts are written without the deployment prefix; these two transport
// subclasses add it in normalizePattern, which Nest calls for every pattern it registers or
// sends, so controllers keep writing @MessagePattern(subjects.customers.customer.create).

type NatsClientOptions = NonNullable<NatsOptions['options']>;

export const prefixSubject = (prefix: string, subject: string): string => `${prefix}.${subject}`;

export type PrefixedServerOptions = {
  subjectPrefix: string;
  logger: Logger;
  healthPort?: number;
  /** Upper bound on how long close() waits for handlers still running. */
  drainTimeoutMs?: number;
};

export class PrefixedServerNats extends ServerNats {
  private inFlight = 0;
  private healthServer?: HttpServer;

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

  override async handleMessage(channel: string, natsMsg: Msg): Promise<unknown> {
    const requestId = natsMsg.headers?.get(REQUEST_ID_HEADER) || randomUUID();
    const correlationId = natsMsg.headers?.get(CORRELATION_ID_HEADER) || requestId;
    return runWithContext({ requestId, correlationId }, () => super.handleMessage(channel, natsMsg));
  }

  // Counts requests until their final reply so close() can let them finish instead of
  // dropping replies mid-flight.
  override getPublisher(natsMsg: Msg, id: string, ctx: never) {
    const publish = super.getPublisher(natsMsg, id, ctx);
    if (!natsMsg.reply) return publish;
    this.inFlight += 1;
    let finished = false;
    return (response: { isDisposed?: boolean; err?: unknown }) => {
      if (!finished && (response.isDisposed || response.err !== undefined)) {
        finished = true;
        this.inFlight -= 1;
      }
      return publish(response);
    };
  }

  override async listen(callback: (error?: unknown) => void): Promise<void> {
    await super.listen((error?: unknown) => {
      if (error || this.prefixed.healthPort === undefined) return callback(error);
      this.startHealthServer(this.prefixed.healthPort).then(() => callback(), callback);
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

  private startHealthServer(port: number): Promise<void> {
    // Container probes need a plain HTTP answer; the NATS ping is what the gateway uses.
    const server = createServer((request, response) => {
      const ok = request.method === 'GET' && request.url === '/health';
      response.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify(ok ? { status: 'ok' } : { status: 404, code: 'REFERENCE_NOT_FOUND', message: 'Only GET /health exists here.' }));
    });
    this.healthServer = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, () => resolve());
    });
  }
}

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
