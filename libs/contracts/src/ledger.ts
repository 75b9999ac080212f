// The double-entry reading of the ledger's events, shared by the accounts service (which records
// them) and by libs/testing (whose conservation checker reads them back from any service's store).
// It works on the stored shape of an event, `{ type, data }` with amounts as decimal strings, so a
// reader needs nothing from the accounts app to check the books.

/** One leg of a movement: a positive amount raises that account's balance. */
export type Posting = { accountId: string; currency: string; amount: bigint };

/**
 * What each internal-account event posts. `credit`: the account gains `amount` and the counter
 * account loses it; `debit`: the reverse. Holds and releases only move money between available
 * and held inside one account, so they post nothing. The accounts app checks at compile time that
 * every event type of its stream is listed here.
 */
export const ledgerPostingKinds = {
  InternalAccountOpened: 'none',
  AccountCredited: 'credit',
  AccountDebited: 'debit',
  FundsHeld: 'none',
  HoldSettled: 'debit',
  HoldReleased: 'none',
  AccountStatusChanged: 'none',
  AccountPrivacyChanged: 'none',
} as const satisfies Record<string, 'credit' | 'debit' | 'none'>;

export type LedgerEventType = keyof typeof ledgerPostingKinds;

/** The members a posting event carries; every other member of the event is ignored here. */
export type PostingEventData = { accountId: string; counterAccountId: string; currency: string; amount: string };

export type StoredLedgerEvent = { type: string; data: Readonly<Record<string, unknown>> };

const isLedgerEventType = (type: string): type is LedgerEventType => Object.prototype.hasOwnProperty.call(ledgerPostingKinds, type);

const textMember = (event: StoredLedgerEvent, name: keyof PostingEventData): string => {
  const value = event.data[name];
  if (typeof value !== 'string' || value.length === 0) {
    throw new RangeError(`${event.type} has no ${name}; a posting event must name it.`);
  }
  return value;
};

/**
 * The double-entry legs of one event. An event type the ledger does not know is refused, because
 * silently posting nothing for it could hide a movement of money from every check built on this.
 */
export const postingsOf = (event: StoredLedgerEvent): Posting[] => {
  if (!isLedgerEventType(event.type)) throw new RangeError(`${event.type} is not an internal-account event.`);
  const kind = ledgerPostingKinds[event.type];
  if (kind === 'none') return [];
  const accountId = textMember(event, 'accountId');
  const counterAccountId = textMember(event, 'counterAccountId');
  const currency = textMember(event, 'currency');
  const magnitude = BigInt(textMember(event, 'amount'));
  const amount = kind === 'credit' ? magnitude : -magnitude;
  return [
    { accountId, currency, amount },
    { accountId: counterAccountId, currency, amount: -amount },
  ];
};

/** Sums postings by a key (currency, account …); a key with no postings is absent, not zero. */
export const sumPostings = (postings: readonly Posting[], keyOf: (posting: Posting) => string): Map<string, bigint> =>
  postings.reduce(
    (sums, posting) => sums.set(keyOf(posting), (sums.get(keyOf(posting)) ?? 0n) + posting.amount),
    new Map<string, bigint>(),
  );
