// The port the trace tool reads through: PostgresTraceReader for the services on PostgreSQL (and
// the webhook delivery log), KurrentTraceReader for those on KurrentDB, put together by
// combineReaders (trace-readers.ts); the tree-building and printing do not know the difference.

/** One stored event as the trace shows it: from which service's store, with its trace ids. */
export type TracedEvent = {
  service: string;
  eventId: string;
  streamId: string;
  /** 1-based position in its stream. */
  position: number;
  /** The store's own order (global position), to order events of one service written in the same millisecond. */
  globalPosition: string;
  type: string;
  occurredAt: string;
  platformId: string;
  correlationId: string | null;
  causationId: string | null;
  requestId: string | null;
  data: Record<string, unknown>;
};

export type TracedAttempt = {
  attempt: number;
  at: string;
  url: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
};

/** One webhook the webhooks service planned for an event, with every attempt and its answer. */
export type TracedDelivery = {
  id: string;
  eventId: string;
  platformId: string;
  type: string;
  resourceId: string;
  status: string;
  attemptCount: number;
  occurredAt: string;
  createdAt: string;
  /** The story the delivery keeps for its attempts (its event's correlation, its cause); null on rows from before it was kept. */
  correlationId: string | null;
  causationId: string | null;
  attempts: TracedAttempt[];
};

/** Inclusive bounds on occurredAt (ISO 8601); either may be absent. */
export type TimeWindow = { from?: string; to?: string };

export interface TraceReader {
  /** The services whose stores this reader reads, for the "searched" line of the output. */
  readonly services: string[];
  /** Events of these streams (stream id = resource id in Corridor), within the window. */
  eventsOfStreams(streamIds: string[], window: TimeWindow): Promise<TracedEvent[]>;
  /** Events whose own id, request id or correlation id is this id (a request id or an event id at hand). */
  eventsWithTraceId(id: string, window: TimeWindow): Promise<TracedEvent[]>;
  /** Events whose data mentions the id anywhere (a quote id inside a transaction's events): a scan, the last resort. */
  eventsMentioning(id: string, window: TimeWindow, limit: number): Promise<TracedEvent[]>;
  /** Every event of these correlations, at most `limit`. */
  eventsOfCorrelations(correlationIds: string[], limit: number): Promise<TracedEvent[]>;
  /** Webhook deliveries planned for these events, with their attempts. */
  deliveriesOfEvents(eventIds: string[]): Promise<TracedDelivery[]>;
  /** One delivery by its id (the webhook id a platform received). */
  delivery(id: string): Promise<TracedDelivery | undefined>;
  close(): Promise<void>;
}
