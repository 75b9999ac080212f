import type { RecordedEvent } from '@corridor/event-store';
import { evolveInternalAccountView, type InternalAccountRow } from './internal-account-view.projection';

// The replay CLI prints the state after every event and compares states with JSON.stringify, which
// cannot serialise the decider's bigints. This fold shows the same account as plain strings, with
// the two balances a client sees, so an account's history reads as "balance after each event".

export type InternalAccountHistory = Partial<Omit<InternalAccountRow, 'createdAt' | 'updatedAt'>> & {
  balance?: string;
  totalBalance?: string;
  updatedAt?: string;
};

export const evolveInternalAccountHistory = (state: InternalAccountHistory, event: RecordedEvent): InternalAccountHistory => {
  const { balance: _balance, totalBalance: _totalBalance, updatedAt, ...rest } = state;
  const previous = rest.id ? ({ ...rest, createdAt: new Date(0), updatedAt: new Date(updatedAt ?? 0) } as InternalAccountRow) : null;
  const row = evolveInternalAccountView(previous, event);
  if (!row) return state;
  const { createdAt: _createdAt, updatedAt: changedAt, ...shown } = row;
  return {
    ...shown,
    balance: row.available,
    totalBalance: (BigInt(row.available) + BigInt(row.held)).toString(),
    updatedAt: changedAt.toISOString(),
  };
};

export const internalAccountHistoryDecider = { evolve: evolveInternalAccountHistory, initialState: (): InternalAccountHistory => ({}) };
