// Pins down rendering an account as of one event: balances and status after exactly that event,
// updatedAt from that event, nothing for a position the stream lacks or another platform's account.
import type { RecordedEvent } from '@corridor/event-store';
import { renderInternalAccountAsOf, renderInternalAccountAt } from './internal-account-at';
import { credited, held, opened, otherPlatformId, platformId, settled, statusChanged } from './internal-account.fixtures';
import type { InternalAccountEvent } from './internal-account';
import { evolveInternalAccountView, renderInternalAccount } from './internal-account-view.projection';

const minute = (index: number) => `2026-03-01T10:0${index}:00.000Z`;

/** The events as the store returns them: positions from 1, one minute apart. */
const recorded = (events: InternalAccountEvent[]): RecordedEvent[] =>
  events.map((event, index) => ({
    eventId: `00000000-0000-7000-8000-00000000000${index}`,
    streamId: String(event.data['accountId']),
    streamPosition: index + 1,
    globalPosition: BigInt(index + 1),
    type: event.type,
    data: { ...event.data },
    metadata: {
      platformId,
      correlationId: 'c',
      requestId: 'r',
      actor: { kind: 'system', name: 'test' },
      occurredAt: minute(index),
      schemaVersion: 1,
    },
  }));

const stream = recorded([opened(), credited('1000'), held('300'), settled('200', '100'), statusChanged('ACTIVE', 'FROZEN')]);
const at = (position: number, platform = platformId) => renderInternalAccountAt(stream, position, platform);

describe('renderInternalAccountAt', () => {
  it('shows the balances right after each event', () =>
    expect([1, 2, 3, 4, 5].map((position) => [at(position)?.balance.amount, at(position)?.totalBalance.amount])).toEqual([
      [0, 0],
      [1000, 1000],
      [700, 1000],
      [800, 800],
      [800, 800],
    ]));

  it('shows the status after that event and dates the object by it', () => {
    expect([at(4)?.status, at(5)?.status]).toEqual(['ACTIVE', 'FROZEN']);
    expect([at(1)?.updatedAt, at(3)?.updatedAt]).toEqual([new Date(minute(0)).toISOString(), new Date(minute(2)).toISOString()]);
    expect(at(3)?.createdAt).toBe(new Date(minute(0)).toISOString());
  });

  it('equals what the read model renders once the whole stream is applied', () => {
    const row = stream.reduce(evolveInternalAccountView, null);
    expect(row && at(5)).toEqual(row && renderInternalAccount(row));
  });

  it('renders nothing for a position the stream does not have', () => expect([at(0), at(6)]).toEqual([null, null]));

  it('renders nothing for another platform', () => expect(at(2, otherPlatformId)).toBeNull());
});

describe('renderInternalAccountAsOf', () => {
  // The same stream, one event a minute from 10:00: opened, +1000, hold 300, settle 200 (100 back), frozen.
  const asOf = (iso: string, platform = platformId) => renderInternalAccountAsOf(stream, new Date(iso), platform);

  it('given credits, a hold and its settlement, answers the ledger balance at each time, the bound included', () =>
    expect(
      ['2026-03-01T10:01:00.000Z', '2026-03-01T10:02:59.999Z', '2026-03-01T10:03:00.000Z', '2026-03-01T10:04:30.000Z'].map((iso) => [
        asOf(iso)?.balance.amount,
        asOf(iso)?.totalBalance.amount,
        asOf(iso)?.status,
      ]),
    ).toEqual([
      [1000, 1000, 'ACTIVE'],
      [700, 1000, 'ACTIVE'],
      [800, 800, 'ACTIVE'],
      [800, 800, 'FROZEN'],
    ]));

  it('answers nothing before the account was opened, or for another platform', () => {
    expect(asOf('2026-03-01T09:59:59.999Z')).toBeNull();
    expect(asOf('2026-03-01T10:02:00.000Z', otherPlatformId)).toBeNull();
  });
});
