import { storedEventsWhere } from './postgres-event-store';
import { decodeCursor, encodeCursor } from '@corridor/contracts';
import { listStoredEvents, storedEventsFilterOf, toStoredEventWire } from './stored-events-query';
import type { EventStore, RecordedEvent } from './types';

describe('storedEventsFilterOf', () => {
  it('always carries the asking platform, and each filter the request names', () => {
    expect(storedEventsFilterOf('Platform:a', { limit: 10 })).toEqual({ platformId: 'Platform:a' });
    expect(
      storedEventsFilterOf('Platform:a', {
        limit: 10,
        resourceId: 'Customer:1',
        correlationId: 'c',
        type: 'CustomerCreated',
        customerId: 'Customer:1',
      }),
    ).toEqual({
      platformId: 'Platform:a',
      resourceId: 'Customer:1',
      correlationId: 'c',
      type: 'CustomerCreated',
      mentioning: 'Customer:1',
    });
  });

  it('turns times into the stored form (ISO 8601 UTC with milliseconds), whatever offset the client used', () => {
    expect(
      storedEventsFilterOf('Platform:a', { limit: 10, startDate: '2026-01-01T02:00:00+02:00', endDate: '2026-01-01T01:00:00Z' }),
    ).toEqual({
      platformId: 'Platform:a',
      occurredFrom: '2026-01-01T00:00:00.000Z',
      occurredTo: '2026-01-01T01:00:00.000Z',
    });
  });
});

describe('storedEventsWhere (PostgreSQL)', () => {
  it('always filters by the platform first, then by each filter given, as parameters', () => {
    expect(storedEventsWhere({ platformId: 'Platform:a' })).toEqual({ where: `metadata->>'platformId' = $1`, values: ['Platform:a'] });
    const { where, values } = storedEventsWhere({
      platformId: 'Platform:a',
      resourceId: 'Customer:1',
      correlationId: 'c',
      type: 'CustomerCreated',
      mentioning: 'Customer:1',
    });
    expect(where.startsWith(`metadata->>'platformId' = $1 AND `)).toBe(true);
    expect(values).toEqual(['Platform:a', 'Customer:1', 'c', 'CustomerCreated', 'Customer:1']);
  });
});

describe('toStoredEventWire', () => {
  it('shows a recorded event with its service, resource and trace ids; absent ids are null', () => {
    const event = {
      eventId: '0190c0de-0000-7000-8000-0000000000aa',
      streamId: 'Customer:1',
      streamPosition: 2,
      globalPosition: 9n,
      type: 'CustomerUpdated',
      data: { customerId: 'Customer:1' },
      metadata: {
        platformId: 'Platform:a',
        correlationId: 'corr',
        requestId: 'req',
        actor: { kind: 'token', tokenId: 'ApiToken:t' },
        occurredAt: '2026-01-01T00:00:00.000Z',
        schemaVersion: 1,
      },
    } as const;
    expect(toStoredEventWire('customers', { ...event, data: { ...event.data }, metadata: { ...event.metadata } })).toEqual({
      id: '0190c0de-0000-7000-8000-0000000000aa',
      type: 'CustomerUpdated',
      resourceId: 'Customer:1',
      service: 'customers',
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'corr',
      causationId: null,
      data: { customerId: 'Customer:1' },
    });
  });
});

describe('listStoredEvents', () => {
  const recorded = (id: string, occurredAt: string): RecordedEvent => ({
    eventId: id,
    streamId: 'Customer:1',
    streamPosition: 1,
    globalPosition: 1n,
    type: 'CustomerCreated',
    data: {},
    metadata: {
      platformId: 'Platform:a',
      correlationId: 'c',
      requestId: 'r',
      actor: { kind: 'token', tokenId: 'ApiToken:t' },
      occurredAt,
      schemaVersion: 1,
    },
  });

  it("asks the service's own store (whichever adapter it is) for limit + 1 after the cursor, and pages its answer", async () => {
    const listEvents = jest.fn<ReturnType<EventStore['listEvents']>, Parameters<EventStore['listEvents']>>().mockResolvedValue({
      events: [
        recorded('e3', '2026-01-01T00:00:03.000Z'),
        recorded('e2', '2026-01-01T00:00:02.000Z'),
        recorded('e1', '2026-01-01T00:00:01.000Z'),
      ],
      totalCount: 7,
    });
    const store = { listEvents } as unknown as EventStore;
    const cursor = encodeCursor({ createdAt: '2026-01-01T00:00:04.000Z', id: 'e4' });
    const page = await listStoredEvents(store, 'customers', 'Platform:a', { limit: 2, cursor, type: 'CustomerCreated' });
    expect(listEvents).toHaveBeenCalledWith(
      { platformId: 'Platform:a', type: 'CustomerCreated' },
      { before: { occurredAt: '2026-01-01T00:00:04.000Z', eventId: 'e4' }, limit: 3 },
    );
    expect(page.data.map((event) => [event.id, event.service])).toEqual([
      ['e3', 'customers'],
      ['e2', 'customers'],
    ]);
    expect(page.hasMore).toBe(true);
    expect(page.totalCount).toBe(7);
    expect(decodeCursor(page.nextCursor!)).toEqual({ createdAt: '2026-01-01T00:00:02.000Z', id: 'e2' });
  });
});
