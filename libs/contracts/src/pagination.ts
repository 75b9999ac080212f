import { invalidInput } from './errors';

// Keyset pagination on (createdAt, id): a cursor names the last row of a page, so rows inserted
// while a client pages never shift a page boundary (no duplicate, no gap).

export const PAGE_LIMIT_DEFAULT = 20;
export const PAGE_LIMIT_MAX = 100;

export type PageRequest = { limit: number; cursor?: string };
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor?: string; totalCount: number };
export type CursorPosition = { createdAt: string; id: string };

export const encodeCursor = (position: CursorPosition): string =>
  Buffer.from(JSON.stringify([position.createdAt, position.id]), 'utf8').toString('base64url');

export const decodeCursor = (cursor: string): CursorPosition => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string' &&
      !Number.isNaN(Date.parse(parsed[0]))
    ) {
      return { createdAt: parsed[0], id: parsed[1] };
    }
  } catch {
    // Falls through to the error below: a cursor is opaque and only ours are valid.
  }
  throw invalidInput('The cursor is not one this API returned. Pass nextCursor from the previous page unchanged.', {
    field: 'cursor',
  });
};

/** Builds a page from `limit + 1` rows fetched in (createdAt, id) order. */
export const toPage = <Row extends { createdAt: Date | string; id: string }, T>(
  rows: Row[],
  limit: number,
  totalCount: number,
  render: (row: Row) => T,
): Page<T> => {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(render),
    hasMore,
    ...(hasMore && last
      ? {
          nextCursor: encodeCursor({
            createdAt: last.createdAt instanceof Date ? last.createdAt.toISOString() : last.createdAt,
            id: last.id,
          }),
        }
      : {}),
    totalCount,
  };
};
