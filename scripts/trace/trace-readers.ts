import { eventStoreChoiceFrom } from '@corridor/event-store';
import type { TimeWindow, TracedDelivery, TracedEvent, TraceReader } from './trace-reader';

// The trace tool reads each service where that service keeps its events, chosen by the same
// variables the services read (EVENT_STORE_<SERVICE>, EVENT_STORE, EVENTSTORE_URL; decision 0036).

export type ReaderPlan = {
  /** service → schema, for the services on PostgreSQL (the webhook delivery log is always read there). */
  postgres: Record<string, string>;
  /** The services on KurrentDB: the server and each service's stream prefix. */
  kurrentdb?: { url: string; prefixes: Record<string, string> };
};

/** Which store each service's events are read from; a bad selection fails as it fails the service. */
export const readerPlan = (schemas: Record<string, string>, env: NodeJS.ProcessEnv = process.env): ReaderPlan => {
  const plan: ReaderPlan = { postgres: {} };
  for (const [service, schema] of Object.entries(schemas)) {
    const choice = eventStoreChoiceFrom(service, env);
    if (choice.kind === 'postgres') plan.postgres[service] = schema;
    else {
      plan.kurrentdb ??= { url: choice.url, prefixes: {} };
      plan.kurrentdb.prefixes[service] = choice.streamPrefix;
    }
  }
  return plan;
};

/** Several readers as one: every question goes to each, and the answers are put together. */
export const combineReaders = (readers: TraceReader[]): TraceReader => {
  const all = async <T>(ask: (reader: TraceReader) => Promise<T[]>): Promise<T[]> => (await Promise.all(readers.map(ask))).flat();
  return {
    services: readers.flatMap((reader) => reader.services),
    eventsOfStreams: (streamIds: string[], window: TimeWindow): Promise<TracedEvent[]> =>
      all((reader) => reader.eventsOfStreams(streamIds, window)),
    eventsWithTraceId: (id: string, window: TimeWindow) => all((reader) => reader.eventsWithTraceId(id, window)),
    eventsMentioning: (id: string, window: TimeWindow, limit: number) => all((reader) => reader.eventsMentioning(id, window, limit)),
    eventsOfCorrelations: (ids: string[], limit: number) => all((reader) => reader.eventsOfCorrelations(ids, limit)),
    deliveriesOfEvents: (eventIds: string[]): Promise<TracedDelivery[]> => all((reader) => reader.deliveriesOfEvents(eventIds)),
    delivery: async (id: string) => (await Promise.all(readers.map((reader) => reader.delivery(id)))).find((found) => found !== undefined),
    close: async () => {
      const closed = await Promise.allSettled(readers.map((reader) => reader.close()));
      const failed = closed.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
};
