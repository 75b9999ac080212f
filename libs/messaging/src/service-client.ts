import { type DynamicModule, Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError, type RequestContext, type ServiceRequest } from '@corridor/contracts';
import { ErrorCode, headers as natsHeaders, JSONCodec, NatsError, type NatsConnection, type Subscription } from 'nats';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { contextCarrier, currentContext, inSpan, SpanKind } from '@corridor/telemetry';
import { fromErrorReply } from './error-codec';
import { createLogger } from './logger';
import { natsMetrics } from './nats-metrics';
import { natsConnectionOptions, type NatsAuth } from './nats-auth';
import { PrefixedClientNats, prefixSubject } from './prefixed-nats';

export type MessagingOptions = { natsUrl: string; subjectPrefix: string; name: string; natsAuth?: NatsAuth };
export type RequestOptions = { context: RequestContext; timeoutMs?: number };

export const MESSAGING_OPTIONS = 'MESSAGING_OPTIONS';
const DEFAULT_TIMEOUT_MS = 5_000;
const codec = JSONCodec();

type ReplyPacket = { response?: unknown; err?: unknown };

const unavailable = (subject: string) => {
  const service = subject.split('.')[0] ?? subject;
  return new DomainError('SERVICE_UNAVAILABLE', 'unavailable', `${service} is not answering; retry shortly.`, { service });
};

/**
 * Request-reply to other services over one NATS connection. Requests go through nats.js
 * `request()` rather than ClientProxy.send: it shares one reply subscription across requests
 * and reports "no responders" the moment the server knows nobody listens, instead of waiting
 * for the timeout.
 */
@Injectable()
export class ServiceClient implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly client: PrefixedClientNats;
  private readonly logger: Logger;

  constructor(@Inject(MESSAGING_OPTIONS) private readonly options: MessagingOptions) {
    this.client = new PrefixedClientNats(natsConnectionOptions(options.natsUrl, options.natsAuth, options.name), options.subjectPrefix);
    this.logger = createLogger(`${options.name}:messaging`);
  }

  // Connecting at bootstrap, not lazily on the first request, keeps a close() during a pending
  // connect from leaving a socket open (jest hangs, shutdown stalls).
  async onApplicationBootstrap(): Promise<void> {
    await this.client.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  /**
   * Sends a request with the caller's ids (the RequestContext, and what caused it: the context's
   * causationId or the current work's) and the trace context in its headers and payload.
   */
  async request<Reply>(subject: string, data: unknown, options: RequestOptions): Promise<Reply> {
    const causationId = options.context.causationId ?? currentContext()?.causationId ?? options.context.requestId;
    const context: RequestContext = { ...options.context, causationId };
    const stopTimer = natsMetrics().requests.startTimer({ subject });
    const span = {
      name: `nats request ${subject}`,
      kind: SpanKind.CLIENT,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    };
    try {
      const reply = await inSpan(span, () => this.send<Reply>(subject, { context, data }, options.timeoutMs));
      stopTimer({ outcome: 'ok' });
      return reply;
    } catch (error) {
      stopTimer({ outcome: error instanceof DomainError && error.code === 'SERVICE_UNAVAILABLE' ? 'unavailable' : 'error' });
      throw error;
    }
  }

  private async send<Reply>(subject: string, request: ServiceRequest<unknown>, timeoutMs: number | undefined): Promise<Reply> {
    const { context } = request;
    const headers = natsHeaders();
    // Written inside the request's span, so the trace context names it as the handler's parent.
    const carrier = contextCarrier({
      requestId: context.requestId,
      correlationId: context.correlationId,
      causationId: context.causationId ?? context.requestId,
      platformId: context.platformId,
    });
    for (const [name, value] of Object.entries(carrier)) if (value) headers.set(name, value);
    // Nest's server expects its own packet shape; `id` marks it as a request, not an event.
    const packet = codec.encode({ pattern: subject, data: request, id: randomUUID() });
    const connection = await this.connection(subject);
    let reply: ReplyPacket;
    try {
      const message = await connection.request(this.prefixed(subject), packet, { timeout: timeoutMs ?? DEFAULT_TIMEOUT_MS, headers });
      reply = codec.decode(message.data) as ReplyPacket;
    } catch (error) {
      if (
        error instanceof NatsError &&
        [ErrorCode.NoResponders, ErrorCode.Timeout, ErrorCode.ConnectionClosed, ErrorCode.Disconnect].includes(error.code as ErrorCode)
      ) {
        throw unavailable(subject);
      }
      throw error;
    }
    if (reply.err !== undefined && reply.err !== null) throw fromErrorReply(reply.err, subject);
    return reply.response as Reply;
  }

  /**
   * Fire-and-forget core NATS publish that every subscriber receives (no queue group). It never
   * rejects, because callers do not await it: a lost broadcast is logged, and its receivers
   * must tolerate a miss (the gateway's credential cache also expires on its own).
   */
  async broadcast(subject: string, data: unknown): Promise<void> {
    try {
      const connection = await this.connection(subject);
      connection.publish(this.prefixed(subject), codec.encode(data));
    } catch (error) {
      this.logger.warn({ err: error, subject }, 'A broadcast could not be published.');
    }
  }

  /** Subscribes without a queue group, so every replica sees each broadcast. */
  async subscribe(subject: string, handle: (data: unknown) => void): Promise<Subscription> {
    const connection = await this.connection(subject);
    return connection.subscribe(this.prefixed(subject), {
      callback: (error, message) => {
        if (error) return;
        try {
          handle(codec.decode(message.data));
        } catch (handlerError) {
          this.logger.warn({ err: handlerError, subject }, 'A broadcast could not be handled.');
        }
      },
    });
  }

  prefixed(subject: string): string {
    return prefixSubject(this.options.subjectPrefix, subject);
  }

  private async connection(subject: string): Promise<NatsConnection> {
    try {
      return this.client.unwrap<NatsConnection>();
    } catch {
      try {
        return await this.client.connect();
      } catch {
        throw unavailable(subject);
      }
    }
  }
}

@Module({})
export class MessagingModule {
  static forRoot(options: MessagingOptions): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      providers: [{ provide: MESSAGING_OPTIONS, useValue: options }, ServiceClient],
      exports: [ServiceClient],
    };
  }
}
