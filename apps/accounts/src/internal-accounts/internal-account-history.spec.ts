import type { RecordedEvent } from '@corridor/event-store';
import { evolveInternalAccountHistory, internalAccountHistoryDecider } from './internal-account-history';

const recorded = (type: string, data: Record<string, unknown>, position: number): RecordedEvent => ({
  eventId: `e${position}`,
  streamId: 'InternalAccount:0196f1a0-0000-7000-8000-000000000001',
  streamPosition: position,
  globalPosition: BigInt(position),
  type,
  data,
  metadata: {
    platformId: 'Platform:p',
    correlationId: 'c',
    requestId: 'r',
    occurredAt: `2026-01-01T00:00:0${position}.000Z`,
    schemaVersion: 1,
  } as RecordedEvent['metadata'],
});

describe('the replay view of an internal account', () => {
  it('shows the balances after each event as JSON-safe strings', () => {
    const accountId = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
    const cause = { kind: 'FUNDING', id: 'f' };
    const events = [
      recorded(
        'InternalAccountOpened',
        {
          accountId,
          platformId: 'Platform:p',
          customerId: null,
          accountType: 'INTERNAL_FIAT',
          currency: 'USD',
          status: 'ACTIVE',
          operationId: 'o',
          openedAt: '2026-01-01T00:00:00.000Z',
        },
        1,
      ),
      recorded(
        'AccountCredited',
        {
          accountId,
          operationId: 'c',
          amount: '90071992547409930',
          currency: 'USD',
          cause,
          counterAccountId: 'SystemAccount:FUNDING_RAIL:USD',
          creditedAt: 'x',
        },
        2,
      ),
      recorded(
        'FundsHeld',
        {
          accountId,
          operationId: 'h',
          holdId: 'h',
          amount: '30',
          currency: 'USD',
          cause,
          counterAccountId: 'SystemAccount:PAYOUT_RAIL:USD',
          heldAt: 'x',
        },
        3,
      ),
    ];
    const states = events.reduce<ReturnType<typeof evolveInternalAccountHistory>[]>(
      (all, event) => [...all, evolveInternalAccountHistory(all.at(-1) ?? internalAccountHistoryDecider.initialState(), event)],
      [],
    );
    expect(states.map((state) => [state.balance, state.totalBalance])).toEqual([
      ['0', '0'],
      ['90071992547409930', '90071992547409930'],
      ['90071992547409900', '90071992547409930'],
    ]);
    expect(() => JSON.stringify(states)).not.toThrow();
  });
});
