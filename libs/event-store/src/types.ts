import type { Actor } from '@corridor/contracts';

/** Stored with every event; it is how one request is followed through every service. */
export type EventMetadata = {
  platformId: string;
  correlationId: string;
  causationId?: string;
  requestId: string;
  actor: Actor;
  occurredAt: string;
  schemaVersion: number;
  commandId?: string;
  /** W3C trace context of the work that appended the event (while tracing is on): the outbox continues its trace. */
  traceparent?: string;
  tracestate?: string;
  /**
   * What the appender knew at append time that only the event's integration event carries (never
   * the event's data, which stays the domain fact GET /events shows): e.g. accounts' row right after
   * an internal account's event, so the webhook renders without asking accounts again (decision 0054).
   */
  integration?: Record<string, unknown>;
};

export type NewEvent = {
  type: string;
  data: Record<string, unknown>;
  schemaVersion?: number;
  /**
   * This event's own metadata, in place of the append's: one append may carry the decisions of
   * several requests (a writer that commits queued commands together), each with its own ids.
   */
  metadata?: AppendMetadata;
};

export type RecordedEvent = {
  eventId: string;
  streamId: string;
  /** 1-based position inside its stream. */
  streamPosition: number;
  globalPosition: bigint;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

export type AppendMetadata = Omit<EventMetadata, 'occurredAt' | 'schemaVersion'> & { occurredAt?: string };

export type ExpectedVersion = number | 'any';

export class WrongExpectedVersionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | undefined,
  ) {
    super(`Stream ${streamId} is at version ${actual ?? 'unknown'}, the append expected ${expected}.`);
    this.name = 'WrongExpectedVersionError';
  }
}

export const isWrongExpectedVersionError = (error: unknown): error is WrongExpectedVersionError =>
  error instanceof WrongExpectedVersionError;

/**
 * Which stored events a listing wants (GET /events, docs/decisions/0037). The platform is not
 * optional: a listing is always one platform's events.
 */
export type StoredEventsFilter = {
  platformId: string;
  /** The stream, which in Corridor is the resource's id. */
  resourceId?: string;
  correlationId?: string;
  type?: string;
  /** Inclusive bounds on metadata.occurredAt, ISO 8601 UTC with milliseconds (the stored form). */
  occurredFrom?: string;
  occurredTo?: string;
  /** Only events of this stream or whose data names this id as a whole JSON string (an agent's customer). */
  mentioning?: string;
};

/** Where a page of stored events starts: strictly older than this (occurredAt, eventId) in code-point order. */
export type StoredEventsKey = { occurredAt: string; eventId: string };

export interface EventStore {
  /** version = position of the last event, 0 when the stream does not exist. Upcasters applied. */
  readStream(streamId: string, options?: { fromPosition?: number }): Promise<{ events: RecordedEvent[]; version: number }>;
  /** expectedVersion: exact version (0 = must not exist) or 'any'. Throws WrongExpectedVersionError. */
  appendToStream(
    streamId: string,
    events: NewEvent[],
    options: { expectedVersion: ExpectedVersion; metadata: AppendMetadata },
  ): Promise<{ version: number; events: RecordedEvent[] }>;
  /**
   * Appends to several distinct streams, each at its own expected version, as one commit where the
   * adapter can (group commit). One stream's wrong version does not fail the others: that entry's
   * result is its WrongExpectedVersionError. Any other failure rejects the whole call.
   */
  appendToStreams(
    appends: { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion }[],
    options: { metadata: AppendMetadata },
  ): Promise<({ version: number; events: RecordedEvent[] } | WrongExpectedVersionError)[]>;
  /**
   * Appends to several distinct streams, each at its own expected version, all or nothing: if one
   * stream is not at its version, nothing is written to any of them and the call rejects with that
   * stream's WrongExpectedVersionError. Results come in the order of `appends`; a stream given no
   * events is only checked. Where the adapter can, one commit (PostgreSQL: one transaction); see
   * the adapter for where it cannot (KurrentDB, decision 0053).
   */
  appendToStreamsAtomically(
    appends: { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion }[],
    options: { metadata: AppendMetadata },
  ): Promise<{ version: number; events: RecordedEvent[] }[]>;
  /**
   * Events with globalPosition > after, ascending, at most `limit`. Never returns an event while an
   * event with a lower globalPosition may still commit, so a reader that advances its checkpoint to
   * the last event it saw can never skip one.
   */
  readAll(options: { after: bigint; limit: number }): Promise<RecordedEvent[]>;
  /**
   * The stream's events whose data field (a string) is one of its `values`, for any of the fields named,
   * oldest first, upcast. How a decision finds an old event by a business id (the ledger's
   * operation and hold ids) without reading the stream into memory where the adapter can index it.
   */
  findInStream(streamId: string, dataEquals: Record<string, readonly string[]>): Promise<RecordedEvent[]>;
  /**
   * One page of the stored events that match the filter, newest first on (occurredAt, eventId)
   * compared by code point, strictly before `before` when given, at most `limit`, upcast; and how
   * many events match the filter in all (ignoring `before` and `limit`).
   */
  listEvents(
    filter: StoredEventsFilter,
    page: { before?: StoredEventsKey; limit: number },
  ): Promise<{ events: RecordedEvent[]; totalCount: number }>;
  /** Highest globalPosition that readAll can currently return (0n when empty). */
  headPosition(): Promise<bigint>;
  close(): Promise<void>;
}

/** Per event type, per schemaVersion: the function that lifts data to schemaVersion + 1. */
export type Upcasters = Record<string, Record<number, (data: Record<string, unknown>) => Record<string, unknown>>>;

/** The bound on upcasting steps keeps a cyclic or runaway upcaster table from looping forever. */
const MAX_UPCAST_STEPS = 100;

/** Applies upcasters while one exists for (type, schemaVersion), bumping schemaVersion each step. */
export const upcast = (event: RecordedEvent, upcasters: Upcasters | undefined): RecordedEvent => {
  const byVersion = upcasters?.[event.type];
  if (!byVersion) return event;
  let { data } = event;
  let version = event.metadata.schemaVersion;
  for (let step = 0; step < MAX_UPCAST_STEPS; step += 1) {
    const lift = byVersion[version];
    if (!lift) break;
    data = lift(data);
    version += 1;
  }
  if (version === event.metadata.schemaVersion) return event;
  return { ...event, data, metadata: { ...event.metadata, schemaVersion: version } };
};

/** The envelope metadata of one new event: the append's metadata plus the time and the schema version. */
export const toEventMetadata = (metadata: AppendMetadata, event: NewEvent, occurredAt: string): EventMetadata => {
  const { occurredAt: _ignored, ...rest } = event.metadata ?? metadata;
  const clean = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return {
    ...(clean as Omit<EventMetadata, 'occurredAt' | 'schemaVersion'>),
    occurredAt: event.metadata?.occurredAt ?? occurredAt,
    schemaVersion: event.schemaVersion ?? 1,
  };
};
