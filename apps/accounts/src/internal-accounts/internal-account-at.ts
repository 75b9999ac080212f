import type { InternalAccountWire } from '@corridor/contracts';
import { foldAsOf, type RecordedEvent } from '@corridor/event-store';
import { evolveInternalAccountView, type InternalAccountRow, renderInternalAccount } from './internal-account-view.projection';

/**
 * The account exactly as GET would have shown it right after the event at `streamPosition`: the
 * read model's own evolve folded over the stream up to and including that event, then the read
 * model's renderer, so a webhook's `data` and a later GET never disagree on shape or arithmetic.
 * Null when the stream has no event at that position or the account is not the platform's.
 */
export const renderInternalAccountAt = (
  events: readonly RecordedEvent[],
  streamPosition: number,
  platformId: string,
): InternalAccountWire | null => {
  if (!events.some((event) => event.streamPosition === streamPosition)) return null;
  const row = events
    .filter((event) => event.streamPosition <= streamPosition)
    .reduce<InternalAccountRow | null>((state, event) => evolveInternalAccountView(state, event), null);
  return row && row.platformId === platformId ? renderInternalAccount(row) : null;
};

/**
 * An account as the ledger saw it at `at` (GET .../internal-accounts?asOf=, decision 0039): every
 * event of its stream that occurred by then (credits, debits, holds, settlements, releases, status
 * changes) folded by the read model's evolve, so the balance is the ledger's at that moment, not
 * today's row. Null before the account was opened or when it is another platform's.
 */
export const renderInternalAccountAsOf = (events: readonly RecordedEvent[], at: Date, platformId: string): InternalAccountWire | null => {
  const row = foldAsOf<InternalAccountRow>(events, at, evolveInternalAccountView);
  return row && row.platformId === platformId ? renderInternalAccount(row) : null;
};
