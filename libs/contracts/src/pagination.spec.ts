// Keyset pagination: a cursor names the last row of a page, opaquely; only cursors this API
// returned are accepted; a page of `limit + 1` rows says there is more and where to go on.
import { DomainError } from './errors';
import { decodeCursor, encodeCursor, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, toPage } from './pagination';

const position = { createdAt: '2026-03-01T10:00:00.000Z', id: 'Customer:019542f5-b3e7-7d02-8000-000000000001' };
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('limits', () => {
  it("are the reference's: 20 by default, at most 100", () => {
    expect(PAGE_LIMIT_DEFAULT).toBe(20);
    expect(PAGE_LIMIT_MAX).toBe(100);
  });
});

describe('encodeCursor and decodeCursor', () => {
  it('give back the position a cursor was made from', () => expect(decodeCursor(encodeCursor(position))).toEqual(position));

  it('make a URL-safe cursor (no +, / or = to escape in a query string)', () =>
    expect(encodeCursor({ createdAt: position.createdAt, id: '>>>???~~~' })).toMatch(/^[A-Za-z0-9_-]+$/));

  it.each([
    ['not base64 JSON', '!!!'],
    ['empty', ''],
    ['an object, not a pair', base64url({ createdAt: position.createdAt, id: position.id })],
    ['a pair whose time is not a date', base64url(['yesterday', position.id])],
    ['a pair whose id is not a string', base64url([position.createdAt, 42])],
    ['three members', base64url([position.createdAt, position.id, 'extra'])],
  ])('refuse a cursor that is %s with a 400 naming the cursor', (_what, cursor) => {
    let thrown: unknown;
    try {
      decodeCursor(cursor);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect(thrown).toMatchObject({ code: 'INVALID_INPUT', status: 400, details: { field: 'cursor' } });
  });
});

describe('toPage', () => {
  const rows = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ id: `Row:${index + 1}`, createdAt: new Date(Date.UTC(2026, 2, 1, 10, index)) }));
  const render = (row: { id: string }) => row.id;

  it('with limit + 1 rows: shows limit rows, says there is more, and points after the last one shown', () => {
    const page = toPage(rows(3), 2, 7, render);
    expect(page).toEqual({ data: ['Row:1', 'Row:2'], hasMore: true, nextCursor: expect.any(String), totalCount: 7 });
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: '2026-03-01T10:01:00.000Z', id: 'Row:2' });
  });

  it('with limit rows or fewer: the last page, without a cursor', () => {
    expect(toPage(rows(2), 2, 2, render)).toEqual({ data: ['Row:1', 'Row:2'], hasMore: false, totalCount: 2 });
    expect(toPage([], 2, 0, render)).toEqual({ data: [], hasMore: false, totalCount: 0 });
  });

  it('takes createdAt as stored text as well as a Date', () => {
    const page = toPage(
      [
        { id: 'Row:1', createdAt: '2026-03-01T10:00:00.000Z' },
        { id: 'Row:2', createdAt: '2026-03-01T10:01:00.000Z' },
      ],
      1,
      2,
      render,
    );
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: '2026-03-01T10:00:00.000Z', id: 'Row:1' });
  });
});
