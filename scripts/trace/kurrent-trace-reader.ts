import { FORWARDS, KurrentDBClient, START, StreamNotFoundError, streamNameFilter } from '@kurrent/kurrentdb-client';
import { type KurrentRecorded, type RecordedEvent, toStoredEvent } from '@corridor/event-store';
import type { TimeWindow, TracedDelivery, TracedEvent, TraceReader } from './trace-reader';

// The trace's questions asked of the services whose events live in KurrentDB (docs/decisions/0036:
// each service is the category `<EVENTSTORE_STREAM_PREFIX><service>-`). A stream is read by its
// name; every other question is one forward read of $all, filtered by the server to those
// services' categories, matched here on the events as stored. The reader only reads. The webhook
// delivery log is not an event store: it stays in PostgreSQL, where PostgresTraceReader answers.

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** A stored event as the trace shows it (the same fields PostgresTraceReader gives a row). */
export const toTracedEvent = (service: string, event: RecordedEvent): TracedEvent => {
  const metadata = event.metadata as Record<string, unknown>;
  return {
    service,
    eventId: event.eventId,
    streamId: event.streamId,
    position: event.streamPosition,
    globalPosition: String(event.globalPosition),
    type: event.type,
    occurredAt: text(metadata['occurredAt']) ?? '',
    platformId: text(metadata['platformId']) ?? '',
    correlationId: text(metadata['correlationId']),
    causationId: text(metadata['causationId']),
    requestId: text(metadata['requestId']),
    data: event.data,
  };
};

/** The service whose category a stream name is in (the longest prefix, should one prefix start another). */
export const serviceOfStream = (prefixes: Record<string, string>, streamName: string): string | undefined =>
  Object.entries(prefixes)
    .filter(([, prefix]) => streamName.startsWith(prefix))
    .sort(([, a], [, b]) => b.length - a.length)[0]?.[0];

/** Inclusive bounds on occurredAt, as the ISO strings compare (PostgreSQL's `metadata->>'occurredAt' >= $n`). */
export const inWindow = (window: TimeWindow, event: TracedEvent): boolean =>
  (!window.from || event.occurredAt >= window.from) && (!window.to || event.occurredAt <= window.to);

/** The event's own id, its request id or its correlation id is this id. */
export const hasTraceId = (id: string, event: TracedEvent): boolean =>
  event.eventId === id || event.requestId === id || event.correlationId === id;

/** The id anywhere in the data's JSON text (PostgreSQL's `strpos(data::text, id) > 0`). */
export const mentions = (id: string, event: TracedEvent): boolean => JSON.stringify(event.data).includes(id);

type ReadClient = Pick<KurrentDBClient, 'readAll' | 'readStream' | 'dispose'>;

export class KurrentTraceReader implements TraceReader {
  constructor(
    private readonly client: ReadClient,
    /** service name → its stream prefix (its KurrentDB category and the separator). */
    private readonly prefixes: Record<string, string>,
  ) {}

  static connect(url: string, prefixes: Record<string, string>): KurrentTraceReader {
    return new KurrentTraceReader(KurrentDBClient.connectionString(url), prefixes);
  }

  get services(): string[] {
    return Object.keys(this.prefixes);
  }

  /** One forward read of these services' categories of $all; at most `limit` matches per service. */
  private async scan(matches: (event: TracedEvent) => boolean, limit: number): Promise<TracedEvent[]> {
    const found: TracedEvent[] = [];
    const counts = new Map<string, number>();
    const filter = streamNameFilter({ prefixes: Object.values(this.prefixes) });
    for await (const resolved of this.client.readAll({ fromPosition: START, filter, direction: FORWARDS })) {
      const stored = resolved.event as KurrentRecorded | undefined;
      const service = stored && !stored.type.startsWith('$') ? serviceOfStream(this.prefixes, stored.streamId) : undefined;
      const prefix = service === undefined ? undefined : this.prefixes[service];
      if (!stored || service === undefined || prefix === undefined || (counts.get(service) ?? 0) >= limit) continue;
      const event = toTracedEvent(service, toStoredEvent(prefix, stored, resolved.commitPosition));
      if (!matches(event)) continue;
      found.push(event);
      counts.set(service, (counts.get(service) ?? 0) + 1);
      if (this.services.every((name) => (counts.get(name) ?? 0) >= limit)) break;
    }
    return found;
  }

  private async readStream(service: string, prefix: string, streamId: string): Promise<TracedEvent[]> {
    const events: TracedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(prefix + streamId, { fromRevision: START, direction: FORWARDS })) {
        const stored = resolved.event as KurrentRecorded | undefined;
        if (stored) events.push(toTracedEvent(service, toStoredEvent(prefix, stored, resolved.commitPosition)));
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return events;
  }

  async eventsOfStreams(streamIds: string[], window: TimeWindow): Promise<TracedEvent[]> {
    const found: TracedEvent[] = [];
    for (const [service, prefix] of Object.entries(this.prefixes))
      for (const streamId of streamIds)
        found.push(...(await this.readStream(service, prefix, streamId)).filter((event) => inWindow(window, event)));
    return found;
  }

  eventsWithTraceId(id: string, window: TimeWindow): Promise<TracedEvent[]> {
    return this.scan((event) => hasTraceId(id, event) && inWindow(window, event), 100_000);
  }

  eventsMentioning(id: string, window: TimeWindow, limit: number): Promise<TracedEvent[]> {
    return this.scan((event) => mentions(id, event) && inWindow(window, event), limit);
  }

  eventsOfCorrelations(correlationIds: string[], limit: number): Promise<TracedEvent[]> {
    if (correlationIds.length === 0) return Promise.resolve([]);
    const wanted = new Set(correlationIds);
    return this.scan((event) => event.correlationId !== null && wanted.has(event.correlationId), limit);
  }

  deliveriesOfEvents(): Promise<TracedDelivery[]> {
    return Promise.resolve([]);
  }

  delivery(): Promise<TracedDelivery | undefined> {
    return Promise.resolve(undefined);
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
