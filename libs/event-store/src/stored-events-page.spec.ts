import { isBefore, newestFirst, storedEventMatches, storedEventsPage } from './stored-events-page';
import type { RecordedEvent } from './types';

const event = (overrides: {
  id: string;
  at: string;
  streamId?: string;
  type?: string;
  platformId?: string;
  correlationId?: string;
  data?: Record<string, unknown>;
}): RecordedEvent => ({
  eventId: overrides.id,
  streamId: overrides.streamId ?? 'Item:1',
  streamPosition: 1,
  globalPosition: 1n,
  type: overrides.type ?? 'ItemCreated',
  data: overrides.data ?? {},
  metadata: {
    platformId: overrides.platformId ?? 'Platform:a',
    correlationId: overrides.correlationId ?? 'c1',
    requestId: 'r',
    actor: { kind: 'token', tokenId: 'ApiToken:t' },
    occurredAt: overrides.at,
    schemaVersion: 1,
  },
});

const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';

describe('storedEventMatches', () => {
  it('given an event of another platform, when any filter is asked, then it never matches', () => {
    const theirs = event({ id: 'e', at: T1, platformId: 'Platform:b' });
    expect(storedEventMatches({ platformId: 'Platform:a' })(theirs)).toBe(false);
    expect(storedEventMatches({ platformId: 'Platform:a', resourceId: 'Item:1', correlationId: 'c1' })(theirs)).toBe(false);
  });

  it('given each filter, then only events that meet all of them match', () => {
    const matches = (filter: Parameters<typeof storedEventMatches>[0]) => storedEventMatches(filter)(event({ id: 'e', at: T1 }));
    expect(matches({ platformId: 'Platform:a', resourceId: 'Item:1', correlationId: 'c1', type: 'ItemCreated' })).toBe(true);
    expect(matches({ platformId: 'Platform:a', resourceId: 'Item:2' })).toBe(false);
    expect(matches({ platformId: 'Platform:a', correlationId: 'c2' })).toBe(false);
    expect(matches({ platformId: 'Platform:a', type: 'ItemPriced' })).toBe(false);
  });

  it('given a time range, then both bounds are inclusive, compared as the stored ISO strings', () => {
    const at = (time: string) =>
      storedEventMatches({ platformId: 'Platform:a', occurredFrom: T1, occurredTo: T2 })(event({ id: 'e', at: time }));
    expect([at(T1), at(T2), at('2026-01-01T00:00:00.999Z'), at('2026-01-01T00:00:02.001Z')]).toEqual([true, true, false, false]);
  });

  it('given a mentioned id, then the stream itself or the id as a whole string anywhere in the data matches', () => {
    const mentions = (streamId: string, data: Record<string, unknown>) =>
      storedEventMatches({ platformId: 'Platform:a', mentioning: 'Customer:1' })(event({ id: 'e', at: T1, streamId, data }));
    expect(mentions('Customer:1', {})).toBe(true);
    expect(mentions('Item:1', { payer: { customerId: 'Customer:1' } })).toBe(true);
    expect(mentions('Item:1', { ids: ['Customer:1'] })).toBe(true);
    expect(mentions('Item:1', { customerId: 'Customer:12' })).toBe(false);
    expect(mentions('Item:1', { note: 'see Customer:1 later' })).toBe(false);
  });
});

describe('newestFirst and isBefore', () => {
  it('orders by time, then by id, both descending in code-point order', () => {
    const events = [event({ id: 'a', at: T1 }), event({ id: 'B', at: T2 }), event({ id: 'b', at: T2 })];
    expect([...events].sort(newestFirst).map((each) => each.eventId)).toEqual(['b', 'B', 'a']);
  });

  it('keeps only events strictly older than the key', () => {
    const key = { occurredAt: T2, eventId: 'b' };
    expect(
      [event({ id: 'c', at: T2 }), event({ id: 'b', at: T2 }), event({ id: 'a', at: T2 }), event({ id: 'z', at: T1 })].map((each) =>
        isBefore(key, each),
      ),
    ).toEqual([false, false, true, true]);
  });
});

describe('storedEventsPage', () => {
  it('given events offered in any order, then it counts every match and keeps the newest page after the key', () => {
    const page = storedEventsPage(
      { platformId: 'Platform:a' },
      { before: { occurredAt: '2026-01-01T00:05:00.000Z', eventId: '' }, limit: 3 },
    );
    const times = Array.from(
      { length: 400 },
      (_, index) => `2026-01-01T00:${String(Math.floor(index / 60)).padStart(2, '0')}:${String(index % 60).padStart(2, '0')}.000Z`,
    );
    // 7919 is prime to 400: every index once, in a scattered order.
    for (let step = 0; step < times.length; step += 1) {
      const index = (step * 7919) % times.length;
      page.offer(event({ id: `e${index}`, at: times[index]! }));
    }
    page.offer(event({ id: 'theirs', at: times[0]!, platformId: 'Platform:b' }));
    const { events, totalCount } = page.result();
    expect(totalCount).toBe(400);
    expect(events.map((each) => each.metadata.occurredAt)).toEqual([
      '2026-01-01T00:04:59.000Z',
      '2026-01-01T00:04:58.000Z',
      '2026-01-01T00:04:57.000Z',
    ]);
  });
});
