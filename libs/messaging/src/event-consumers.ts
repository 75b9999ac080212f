import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { startDurableConsumer } from './jetstream';
import type { ProcessedStore } from './processed-store';

/** What every consumer of one policy shares: the connection, the events stream, the subject prefix and the logger. */
export type EventConsumerScope = {
  nc: NatsConnection;
  /** The events stream (eventsStreamName(subjectPrefix)). */
  stream: string;
  subjectPrefix: string;
  logger: Logger;
  /** Where deduplicating consumers record handled messages, each under `<durable>:<msgId>`. */
  processed?: ProcessedStore;
};

export type EventConsumerOptions = {
  /**
   * Record each handled message and skip a redelivered one: for handlers whose repeat would do
   * harm (an older email after a newer one). Idempotent handlers skip the record and its two round trips.
   */
  deduplicate?: boolean;
  /** Messages handled at once (default 1, in stream order); above 1 the handler must not depend on order. */
  concurrency?: number;
};

/**
 * Starts one durable consumer of one integration event type (`event` is the subject after
 * `<prefix>.events.`, e.g. `customers.Customer.CustomerCreated`): the one way a policy consumes
 * the events stream.
 */
export const consumeEvents = (
  scope: EventConsumerScope,
  durable: string,
  event: string,
  handle: (payload: unknown, msgId: string) => Promise<void>,
  options: EventConsumerOptions = {},
): Promise<{ stop(): Promise<void> }> => {
  const { processed } = scope;
  if (options.deduplicate && !processed) throw new Error(`Consumer ${durable} deduplicates but was given no processed store.`);
  return startDurableConsumer({
    nc: scope.nc,
    stream: scope.stream,
    durable,
    filterSubject: `${scope.subjectPrefix}.events.${event}`,
    handle: (payload, meta) => handle(payload, meta.msgId),
    ...(options.deduplicate && processed
      ? {
          isProcessed: (msgId: string) => processed.isProcessed(`${durable}:${msgId}`),
          markProcessed: (msgId: string) => processed.markProcessed(`${durable}:${msgId}`),
        }
      : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    logger: scope.logger,
  });
};
