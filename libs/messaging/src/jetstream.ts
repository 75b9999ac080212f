import {
  AckPolicy,
  DeliverPolicy,
  headers as natsHeaders,
  JSONCodec,
  type ConsumerMessages,
  type JetStreamClient,
  type JsMsg,
  type NatsConnection,
} from 'nats';
import type { Logger } from 'pino';
import { Counter, Registry } from 'prom-client';
import { continueFromCarrier, SpanKind, type TelemetryContext } from '@corridor/telemetry';
import { createLogger } from './logger';

const codec = JSONCodec();

/** Publishes one integration event; JetStream drops a repeat of the same msgId within its window. */
export async function publishEvent(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  msgId: string,
  headers?: Record<string, string>,
): Promise<void> {
  const natsHeadersValue = natsHeaders();
  for (const [name, value] of Object.entries(headers ?? {})) natsHeadersValue.set(name, value);
  await js.publish(subject, codec.encode(payload), { msgID: msgId, headers: natsHeadersValue });
}

export type MessageMeta = { msgId: string; subject: string; redelivered: boolean };

export type DurableConsumerOptions = {
  nc: NatsConnection;
  stream: string;
  durable: string;
  filterSubject: string;
  handle: (payload: unknown, meta: MessageMeta) => Promise<void>;
  isProcessed?: (msgId: string) => Promise<boolean>;
  markProcessed?: (msgId: string) => Promise<void>;
  /** How long the server waits for an ack before redelivering (default 30 s). */
  ackWaitMs?: number;
  /** Messages pulled per batch (default 64). */
  batchSize?: number;
  /**
   * Messages handled at once (default 1: one after another, in stream order). Above 1, messages
   * with the same `keyOf` still run one after another in stream order; without `keyOf` the
   * handler must not depend on order between messages at all (opening accounts, say: idempotent
   * and commutative). Concurrent handlers let a service group their appends and read-model waits.
   */
  concurrency?: number;
  /** The resource a message is about (a customer id, say), for `concurrency` above 1. */
  keyOf?: (payload: unknown) => string | undefined;
  logger?: Logger;
};

type ConsumerCounters = {
  registry: Registry;
  deliveries: Counter<'consumer'>;
  redeliveries: Counter<'consumer'>;
  failures: Counter<'consumer' | 'reason'>;
};
let counters: ConsumerCounters | undefined;

const consumerCounters = (): ConsumerCounters => {
  if (!counters) {
    const registry = new Registry();
    counters = {
      registry,
      deliveries: new Counter({
        name: 'corridor_consumer_deliveries_total',
        help: 'JetStream messages delivered to a durable consumer of this process (redeliveries included).',
        labelNames: ['consumer'],
        registers: [registry],
      }),
      redeliveries: new Counter({
        name: 'corridor_consumer_redeliveries_total',
        help: 'JetStream messages delivered again (after a nak, an ack timeout or a restart).',
        labelNames: ['consumer'],
        registers: [registry],
      }),
      failures: new Counter({
        name: 'corridor_consumer_failures_total',
        help:
          'Messages a consumer could not process: reason handler (nak, redelivered later), decode (not JSON, dropped), dedup (the ' +
          'processed-store check or record failed), loop (the consumer stopped).',
        labelNames: ['consumer', 'reason'],
        registers: [registry],
      }),
    };
  }
  return counters;
};

/** The consumers' counters of this process, one registry for all: a metrics source for /metrics. */
export const consumerMetrics = (): Registry => consumerCounters().registry;

// Redelivery after a failure backs off up to this cap so a poison message does not spin.
const NAK_DELAY_BASE_MS = 500;
const NAK_DELAY_MAX_MS = 30_000;

const nakDelay = (deliveryCount: number): number => Math.min(NAK_DELAY_BASE_MS * 2 ** Math.min(deliveryCount - 1, 10), NAK_DELAY_MAX_MS);

const msgIdOf = (message: JsMsg, stream: string): string => message.headers?.get('Nats-Msg-Id') || `${stream}:${message.seq}`;

async function ensureConsumer(options: DurableConsumerOptions): Promise<void> {
  const jsm = await options.nc.jetstreamManager();
  const config = {
    durable_name: options.durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    // nats-server 2.9 knows only the single filter_subject.
    filter_subject: options.filterSubject,
    ack_wait: (options.ackWaitMs ?? 30_000) * 1_000_000,
  };
  // Silent on purpose: "consumer not found" is the expected answer the first time; any other
  // failure (NATS down) makes the add below fail too, and that error reaches the caller.
  const existing = await jsm.consumers.info(options.stream, options.durable).catch(() => undefined);
  if (!existing) {
    await jsm.consumers.add(options.stream, config);
  } else if (existing.config.filter_subject !== options.filterSubject) {
    await jsm.consumers.update(options.stream, options.durable, { filter_subject: options.filterSubject });
  }
}

async function processMessage(message: JsMsg, options: DurableConsumerOptions, logger: Logger): Promise<void> {
  const { deliveries, redeliveries, failures } = consumerCounters();
  const consumer = options.durable;
  const msgId = msgIdOf(message, options.stream);
  // Every failure log names the consumer, the subject, the stream sequence and the message id.
  const where = { consumer, subject: message.subject, streamSeq: message.seq, msgId, deliveries: message.info.redeliveryCount };
  deliveries.inc({ consumer });
  if (message.redelivered) redeliveries.inc({ consumer });
  try {
    if (options.isProcessed && (await options.isProcessed(msgId))) {
      message.ack();
      return;
    }
  } catch (error) {
    failures.inc({ consumer, reason: 'dedup' });
    logger.error({ err: error, ...where }, 'Could not check whether the message was already processed; it will be redelivered.');
    message.nak(nakDelay(message.info.redeliveryCount));
    return;
  }
  let payload: unknown;
  try {
    payload = codec.decode(message.data);
  } catch (error) {
    // A body that is not JSON will never become valid; redelivering it would only loop.
    failures.inc({ consumer, reason: 'decode' });
    logger.error({ err: error, ...where }, 'Dropping a message that is not JSON.');
    message.term();
    return;
  }
  try {
    const read = (name: string) => message.headers?.get(name) || undefined;
    const span = {
      name: `consume ${options.durable}`,
      kind: SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'nats', 'messaging.message.id': msgId },
    };
    await continueFromCarrier(read, envelopeContext(payload, msgId), span, () =>
      options.handle(payload, { msgId, subject: message.subject, redelivered: message.redelivered }),
    );
  } catch (error) {
    failures.inc({ consumer, reason: 'handler' });
    logger.warn({ err: error, ...where }, 'Handler failed; the message will be redelivered.');
    message.nak(nakDelay(message.info.redeliveryCount));
    return;
  }
  try {
    await options.markProcessed?.(msgId);
  } catch (error) {
    // Handled but not recorded: the redelivery runs the handler again, which must be idempotent.
    failures.inc({ consumer, reason: 'dedup' });
    logger.error({ err: error, ...where }, 'Handled, but recording it as processed failed; it will be redelivered.');
    message.nak(nakDelay(message.info.redeliveryCount));
    return;
  }
  message.ack();
}

/**
 * The ids a message without context headers (published before they existed) still offers: the
 * envelope's correlation and platform, and the event itself as the cause of the work.
 */
const envelopeContext = (payload: unknown, msgId: string): TelemetryContext => {
  const envelope = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  const eventId = text(envelope['eventId']) ?? msgId;
  const platformId = text(envelope['platformId']);
  return {
    requestId: msgId,
    correlationId: text(envelope['correlationId']) ?? eventId,
    causationId: eventId,
    ...(platformId ? { platformId } : {}),
  };
};

const keyOfMessage = (message: JsMsg, keyOf: DurableConsumerOptions['keyOf']): string | undefined => {
  if (!keyOf) return undefined;
  try {
    return keyOf(codec.decode(message.data));
  } catch {
    // Not JSON: processMessage drops it with a log line of its own; it needs no order.
    return undefined;
  }
};

/**
 * Consumes a durable JetStream consumer one message at a time, in order (or `concurrency` at once). Delivery is
 * at-least-once, so with isProcessed/markProcessed a message already handled (a redelivery
 * after a crash between handle and ack) is acknowledged without running the handler again.
 */
export async function startDurableConsumer(options: DurableConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const logger = options.logger ?? createLogger(`consumer:${options.durable}`);
  await ensureConsumer(options);
  const consumer = await options.nc.jetstream().consumers.get(options.stream, options.durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.batchSize ?? 64 });
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const loop = (async () => {
    if (concurrency === 1) {
      for await (const message of messages) await processMessage(message, options, logger);
      return;
    }
    const inFlight = new Set<Promise<void>>();
    // The last message of each key still in flight: the next one of that key runs after it.
    const tails = new Map<string, Promise<void>>();
    for await (const message of messages) {
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
      const key = keyOfMessage(message, options.keyOf);
      const run = (key === undefined ? Promise.resolve() : (tails.get(key) ?? Promise.resolve()))
        .then(() => processMessage(message, options, logger))
        .catch((error: unknown) => {
          // processMessage settles every message itself (ack, nak or term); reaching this is a bug,
          // and the unsettled message comes back after the ack wait.
          logger.error(
            { err: error, consumer: options.durable, subject: message.subject, streamSeq: message.seq },
            'Processing a message failed unexpectedly; it will be redelivered after the ack wait.',
          );
        });
      inFlight.add(run);
      if (key !== undefined) tails.set(key, run);
      void run.then(() => {
        inFlight.delete(run);
        if (key !== undefined && tails.get(key) === run) tails.delete(key);
      });
    }
    await Promise.all(inFlight);
  })().catch((error: unknown) => {
    consumerCounters().failures.inc({ consumer: options.durable, reason: 'loop' });
    logger.error(
      { err: error, consumer: options.durable, stream: options.stream, filterSubject: options.filterSubject },
      'Consumer loop stopped; this consumer receives nothing more until the service restarts.',
    );
  });
  return {
    async stop() {
      await messages.close();
      await loop;
    },
  };
}
