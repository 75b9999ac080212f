import { encodeCursor, type Page, type StoredEventWire } from '@corridor/contracts';

/** Newest first on (occurredAt, id), in code-point order: the order every service pages in (COLLATE "C"). */
const newestFirst = (left: StoredEventWire, right: StoredEventWire): number =>
  left.occurredAt < right.occurredAt ? 1 : left.occurredAt > right.occurredAt ? -1 : left.id < right.id ? 1 : left.id > right.id ? -1 : 0;

/**
 * One page from every service's page of the same request. Each service gave its newest `limit`
 * events after the cursor, so the newest `limit` of their union are the page; there are more when
 * the union is longer or a service had more of its own.
 */
export const mergePages = (pages: Page<StoredEventWire>[], limit: number): Page<StoredEventWire> => {
  const all = pages.flatMap((page) => page.data).sort(newestFirst);
  const data = all.slice(0, limit);
  const hasMore = all.length > limit || pages.some((page) => page.hasMore);
  const last = data[data.length - 1];
  return {
    data,
    hasMore,
    ...(hasMore && last ? { nextCursor: encodeCursor({ createdAt: last.occurredAt, id: last.id }) } : {}),
    totalCount: pages.reduce((sum, page) => sum + page.totalCount, 0),
  };
};
