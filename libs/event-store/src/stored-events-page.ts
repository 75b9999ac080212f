import type { RecordedEvent, StoredEventsFilter, StoredEventsKey } from './types';

// "List stored events" for an adapter that cannot ask its server to filter, order and count by
// event metadata (KurrentDB): the same rules the PostgreSQL adapter writes as SQL, as functions of
// one event, so both answer the port's listEvents alike (the contract suite holds them to it).

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Whether an event, as stored (before upcasting, as PostgreSQL's WHERE sees it), is one the filter
 * wants. Times compare as the stored ISO strings do; `mentioning` is the id as a whole JSON string
 * anywhere in the data, or the stream itself.
 */
export const storedEventMatches =
  (filter: StoredEventsFilter) =>
  (event: RecordedEvent): boolean => {
    const metadata = event.metadata as Record<string, unknown>;
    const occurredAt = text(metadata['occurredAt']);
    if (text(metadata['platformId']) !== filter.platformId) return false;
    if (filter.resourceId !== undefined && event.streamId !== filter.resourceId) return false;
    if (filter.correlationId !== undefined && text(metadata['correlationId']) !== filter.correlationId) return false;
    if (filter.type !== undefined && event.type !== filter.type) return false;
    if (filter.occurredFrom !== undefined && (occurredAt === undefined || occurredAt < filter.occurredFrom)) return false;
    if (filter.occurredTo !== undefined && (occurredAt === undefined || occurredAt > filter.occurredTo)) return false;
    if (filter.mentioning !== undefined && event.streamId !== filter.mentioning)
      return JSON.stringify(event.data).includes(JSON.stringify(filter.mentioning));
    return true;
  };

/** An event's listing key. Every event is written with a time (toEventMetadata); "" only guards a hand-made one. */
export const storedEventKey = (event: RecordedEvent): StoredEventsKey => ({
  occurredAt: text((event.metadata as Record<string, unknown>)['occurredAt']) ?? '',
  eventId: event.eventId,
});

/** Newest first on (occurredAt, eventId) by code point: JavaScript's string order, PostgreSQL's COLLATE "C". */
export const newestFirst = (a: RecordedEvent, b: RecordedEvent): number => {
  const [left, right] = [storedEventKey(a), storedEventKey(b)];
  if (left.occurredAt !== right.occurredAt) return left.occurredAt < right.occurredAt ? 1 : -1;
  if (left.eventId === right.eventId) return 0;
  return left.eventId < right.eventId ? 1 : -1;
};

/** Strictly older than the key: the keyset condition of the page after `key`. */
export const isBefore = (key: StoredEventsKey, event: RecordedEvent): boolean => {
  const own = storedEventKey(event);
  return own.occurredAt < key.occurredAt || (own.occurredAt === key.occurredAt && own.eventId < key.eventId);
};

/**
 * Gathers one page from events offered in any order: counts every match and keeps only the newest
 * `limit` after the key, so a scan of a whole store holds one page in memory, not the store.
 */
export const storedEventsPage = (filter: StoredEventsFilter, page: { before?: StoredEventsKey; limit: number }) => {
  const matches = storedEventMatches(filter);
  const limit = Math.max(0, page.limit);
  let kept: RecordedEvent[] = [];
  let totalCount = 0;
  return {
    offer(event: RecordedEvent): void {
      if (!matches(event)) return;
      totalCount += 1;
      if (page.before && !isBefore(page.before, event)) return;
      kept.push(event);
      if (kept.length >= 2 * limit + 64) kept = kept.sort(newestFirst).slice(0, limit);
    },
    result(): { events: RecordedEvent[]; totalCount: number } {
      return { events: kept.sort(newestFirst).slice(0, limit), totalCount };
    },
  };
};
