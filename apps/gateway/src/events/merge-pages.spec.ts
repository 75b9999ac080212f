import { decodeCursor, type Page, type StoredEventWire } from '@corridor/contracts';
import { mergePages } from './merge-pages';

const event = (id: string, occurredAt: string, service = 'payments'): StoredEventWire => ({
  id,
  type: 'T',
  resourceId: 'R',
  service,
  occurredAt,
  correlationId: null,
  causationId: null,
  data: {},
});
const page = (data: StoredEventWire[], hasMore = false, totalCount = data.length): Page<StoredEventWire> => ({ data, hasMore, totalCount });

describe('mergePages', () => {
  it('given each service’s newest events, answers the newest of all, with a cursor at the last one shown', () => {
    const merged = mergePages(
      [
        page([event('b', '2026-01-01T00:00:03.000Z'), event('a', '2026-01-01T00:00:01.000Z')], true, 5),
        page([event('c', '2026-01-01T00:00:02.000Z', 'accounts')], false, 1),
      ],
      2,
    );
    expect(merged.data.map((item) => item.id)).toEqual(['b', 'c']);
    expect(merged).toMatchObject({ hasMore: true, totalCount: 6 });
    expect(decodeCursor(merged.nextCursor as string)).toEqual({ createdAt: '2026-01-01T00:00:02.000Z', id: 'c' });
  });

  it('breaks a tie in time by id, the order every service pages in', () => {
    const merged = mergePages([page([event('a', '2026-01-01T00:00:01.000Z')]), page([event('b', '2026-01-01T00:00:01.000Z')])], 10);
    expect(merged.data.map((item) => item.id)).toEqual(['b', 'a']);
    expect(merged).toEqual(expect.objectContaining({ hasMore: false, totalCount: 2 }));
    expect(merged).not.toHaveProperty('nextCursor');
  });

  it('has more when the services’ pages together are longer than one page, though none has more of its own', () => {
    const merged = mergePages([page([event('a', '2026-01-01T00:00:01.000Z')]), page([event('b', '2026-01-01T00:00:02.000Z')])], 1);
    expect(merged).toMatchObject({ data: [expect.objectContaining({ id: 'b' })], hasMore: true });
  });
});
