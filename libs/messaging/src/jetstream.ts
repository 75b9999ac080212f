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
  logger?: Logger;
};

// Redelivery after a failure backs off up to this cap so a poison message does not spin.
const NAK_DELAY_BASE_MS = 500;
const NAK_DELAY_MAX_MS = 30_000;

const nakDelay = (deliveryCount: number): number =>
  Math.min(NAK_DELAY_BASE_MS * 2 ** Math.min(deliveryCount - 1, 10), NAK_DELAY_MAX_MS);

const msgIdOf = (message: JsMsg, stream: string): string =>
  message.headers?.get('Nats-Msg-Id') || `${stream}:${message.seq}`;

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
  const existing = await jsm.consumers.info(options.stream, options.durable).catch(() => undefined);
  if (!existing) {
    await jsm.consumers.add(options.stream, config);
  } else if (existing.config.filter_subject !== options.filterSubject) {
    await jsm.consumers.update(options.stream, options.durable, { filter_subject: options.filterSubject });
  }
}

async function processMessage(message: JsMsg, options: DurableConsumerOptions, logger: Logger): Promise<void> {
  const msgId = msgIdOf(message, options.stream);
  if (options.isProcessed && (await options.isProcessed(msgId))) {
    message.ack();
    return;
  }
  let payload: unknown;
  try {
    payload = codec.decode(message.data);
  } catch (error) {
    // A body that is not JSON will never become valid; redelivering it would only loop.
    logger.error({ err: error, msgId, subject: message.subject }, 'Dropping a message that is not JSON.');
    message.term();
    return;
  }
  try {
    await options.handle(payload, { msgId, subject: message.subject, redelivered: message.redelivered });
    await options.markProcessed?.(msgId);
    message.ack();
  } catch (error) {
    logger.warn({ err: error, msgId, subject: message.subject, deliveries: message.info.redeliveryCount }, 'Handler failed; the message will be redelivered.');
    message.nak(nakDelay(message.info.redeliveryCount));
  }
}

/**
 * Consumes a durable JetStream consumer one message at a time, in order. Delivery is
 * at-least-once, so with isProcessed/markProcessed a message already handled (a redelivery
 * after a crash between handle and ack) is acknowledged without running the handler again.
 */
export async function startDurableConsumer(options: DurableConsumerOptions): Promise<{ stop(): Promise<void> }> {
  const logger = options.logger ?? createLogger(`consumer:${options.durable}`);
  await ensureConsumer(options);
  const consumer = await options.nc.jetstream().consumers.get(options.stream, options.durable);
  const messages: ConsumerMessages = await consumer.consume({ max_messages: options.batchSize ?? 64 });
  const loop = (async () => {
    for await (const message of messages) {
      await processMessage(message, options, logger);
    }
  })().catch((error: unknown) => logger.error({ err: error }, 'Consumer loop stopped.'));
  return {
    async stop() {
      await messages.close();
      await loop;
    },
  };
}
