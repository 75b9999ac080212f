import type { TracedDelivery, TracedEvent } from './trace-reader';
import { buildTree, flatten, jsonLines, summarize } from './trace-tree';

const event = (eventId: string, occurredAt: string, extra: Partial<TracedEvent> = {}): TracedEvent => ({
  service: 'payments',
  eventId,
  streamId: 'Transaction:1',
  position: 1,
  globalPosition: '1',
  type: 'Something',
  occurredAt,
  platformId: 'Platform:a',
  correlationId: 'corr',
  causationId: null,
  requestId: 'req',
  data: {},
  ...extra,
});

const delivery = (eventId: string): TracedDelivery => ({
  id: 'Webhook:1',
  eventId,
  platformId: 'Platform:a',
  type: 'OUTGOING_PAYMENT.COMPLETED',
  resourceId: 'Transaction:1',
  status: 'DELIVERED',
  attemptCount: 2,
  occurredAt: '2026-01-01T00:00:03.000Z',
  createdAt: '2026-01-01T00:00:03.100Z',
  correlationId: 'corr',
  causationId: eventId,
  attempts: [
    { attempt: 1, at: '2026-01-01T00:00:03.200Z', url: 'https://a', statusCode: 500, latencyMs: 12, error: null },
    { attempt: 2, at: '2026-01-01T00:00:04.200Z', url: 'https://a', statusCode: 200, latencyMs: 9, error: null },
  ],
});

describe('the trace tree', () => {
  it('given events without causation ids, lists them flat in time order, then store order within one instant', () => {
    const roots = buildTree(
      [
        event('c', '2026-01-01T00:00:02.000Z'),
        event('b', '2026-01-01T00:00:01.000Z', { globalPosition: '8' }),
        event('a', '2026-01-01T00:00:01.000Z', { globalPosition: '7' }),
      ],
      [],
    );
    expect(flatten(roots).map((node) => [node.event.eventId, node.depth])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
  });

  it('given causation ids that name events of the trace, nests each event under its cause', () => {
    const roots = buildTree(
      [
        event('held', '2026-01-01T00:00:02.000Z', { service: 'accounts', causationId: 'executed' }),
        event('executed', '2026-01-01T00:00:01.000Z', { causationId: 'request-1' }),
        event('settled', '2026-01-01T00:00:03.000Z', { causationId: 'held' }),
        event('other', '2026-01-01T00:00:02.500Z', { causationId: 'executed' }),
      ],
      [],
    );
    expect(flatten(roots).map((node) => [node.event.eventId, node.depth, node.parentEventId])).toEqual([
      ['executed', 0, null],
      ['held', 1, 'executed'],
      ['settled', 2, 'held'],
      ['other', 1, 'executed'],
    ]);
  });

  it('given the same event found twice and a causation cycle, keeps one copy and shows both events', () => {
    const roots = buildTree(
      [
        event('a', '2026-01-01T00:00:01.000Z', { causationId: 'b' }),
        event('b', '2026-01-01T00:00:02.000Z', { causationId: 'a' }),
        event('a', '2026-01-01T00:00:01.000Z', { causationId: 'b' }),
      ],
      [],
    );
    expect(
      flatten(roots)
        .map((node) => node.event.eventId)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('attaches each webhook delivery under its event, as a JSON line right after it', () => {
    const lines = jsonLines(buildTree([event('done', '2026-01-01T00:00:03.000Z', { data: { status: 'COMPLETED' } })], [delivery('done')]));
    expect(lines).toEqual([
      expect.objectContaining({
        kind: 'event',
        service: 'payments',
        streamId: 'Transaction:1',
        position: 1,
        type: 'Something',
        correlationId: 'corr',
        causationId: null,
        data: { status: 'COMPLETED' },
      }),
      expect.objectContaining({
        kind: 'delivery',
        service: 'webhooks',
        type: 'OUTGOING_PAYMENT.COMPLETED',
        correlationId: 'corr',
        causationId: 'done',
        data: expect.objectContaining({ status: 'DELIVERED', attemptCount: 2 }),
      }),
    ]);
  });
});

describe('summarize', () => {
  it('shows the leaves of the data as path=value on one bounded line', () => {
    expect(
      summarize({ status: 'COMPLETED', amount: { value: 1000, currency: 'USD' }, tags: ['a', 'b'], none: null, legs: [{ id: 'x' }] }),
    ).toBe('status=COMPLETED amount.value=1000 amount.currency=USD tags=[a,b] legs[0].id=x');
    expect(summarize({ note: 'x'.repeat(500) }).length).toBeLessThanOrEqual(200);
  });
});
