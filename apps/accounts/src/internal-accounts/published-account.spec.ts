// Pins down decision 0054: the account an internal account's integration event carries, from the
// row its writer stored at append time, is byte for byte what renderAt answers for that event
// (after a credit, a hold, a settle and a status change, several events to one append), and an
// event recorded without it publishes exactly what it published before.
import type { RecordedEvent } from '@corridor/event-store';
import { toIntegrationEvent } from '../integration-events';
import type { InternalAccountEvent } from './internal-account';
import { renderInternalAccountAt } from './internal-account-at';
import { credited, held, opened, otherPlatformId, platformId, settled, statusChanged } from './internal-account.fixtures';
import { evolveInternalAccountView } from './internal-account-view.projection';
import { withRowAfterEach } from './published-account';

const metadata = (occurredAt: string, integration?: Record<string, unknown>): RecordedEvent['metadata'] => ({
  platformId,
  correlationId: 'c',
  requestId: 'r',
  actor: { kind: 'system', name: 'test' },
  occurredAt,
  schemaVersion: 1,
  ...(integration ? { integration } : {}),
});

/** What the store records for the writer's appends: each append's events with the row the writer folded before it. */
const appendAll = (appends: { at: string; events: InternalAccountEvent[] }[]): RecordedEvent[] =>
  appends.reduce<RecordedEvent[]>((stream, { at, events }) => {
    const before = stream.reduce(evolveInternalAccountView, null);
    const decided = withRowAfterEach(
      before,
      events.map((event) => ({ type: event.type, data: { ...event.data } })),
      at,
    );
    return [
      ...stream,
      ...decided.map((event, index) => ({
        eventId: `00000000-0000-7000-8000-0000000000${stream.length + index}`,
        streamId: String(event.data['accountId']),
        streamPosition: stream.length + index + 1,
        globalPosition: BigInt(stream.length + index + 1),
        type: event.type,
        data: event.data,
        metadata: metadata(event.occurredAt, event.integration),
      })),
    ];
  }, []);

const stream = appendAll([
  { at: '2026-03-01T10:00:00.000Z', events: [opened(), credited('1000')] },
  { at: '2026-03-01T10:01:00.123Z', events: [held('300')] },
  { at: '2026-03-01T10:02:00.456Z', events: [settled('200', '100'), statusChanged('ACTIVE', 'FROZEN')] },
]);

const publishedData = (event: RecordedEvent) => (toIntegrationEvent(event)?.payload as { data: Record<string, unknown> }).data;

describe('the account an internal account event publishes', () => {
  it.each([1, 2, 3, 4, 5])('at position %i is the same bytes renderAt answers for it', (position) => {
    const event = stream[position - 1]!;
    const rendered = renderInternalAccountAt(stream, position, platformId);
    expect(rendered).not.toBeNull();
    expect(JSON.stringify(publishedData(event)['account'])).toBe(JSON.stringify(rendered));
  });

  it('shows the balance and status right after the event, dated by it', () => {
    const accounts = stream.map((event) => publishedData(event)['account'] as Record<string, { amount: number }>);
    expect(accounts.map((account) => [account['balance']?.amount, account['totalBalance']?.amount, account['status']])).toEqual([
      [0, 0, 'ACTIVE'],
      [1000, 1000, 'ACTIVE'],
      [700, 1000, 'ACTIVE'],
      [800, 800, 'ACTIVE'],
      [800, 800, 'FROZEN'],
    ]);
    expect(accounts.map((account) => account['updatedAt'])).toEqual(stream.map((event) => event.metadata.occurredAt));
  });

  it("keeps the event's own fields unchanged and adds only `account`", () => {
    for (const event of stream) expect(publishedData(event)).toEqual({ ...event.data, account: expect.any(Object) });
  });

  it('publishes the event as before when it was recorded without the row (before decision 0054)', () => {
    const old = { ...stream[2]!, metadata: metadata(stream[2]!.metadata.occurredAt) };
    expect(publishedData(old)).toEqual(stream[2]!.data);
  });

  it("carries no account for a row that is not the event's platform's, as renderAt answers 404", () => {
    const foreign = { ...stream[2]!, metadata: { ...stream[2]!.metadata, platformId: otherPlatformId } };
    expect(publishedData(foreign)).toEqual(stream[2]!.data);
  });
});
