import type { Event, LedgerEventType } from '@corridor/contracts';
import { AppendOnlyMap } from './append-only-map';

// One stream per internal account (stream id = the account id). Balances are derived from the
// stream alone, and every balance event names its cause and a system counter account, so the
// double-entry postings of the whole ledger can be rebuilt from the events without other data.

export type InternalAccountType = 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET';
export type InternalAccountStatus = 'PENDING' | 'ACTIVE' | 'FROZEN' | 'CLOSED';
export type CauseKind = 'FUNDING' | 'TRANSACTION' | 'CARD_SETTLEMENT' | 'TRANSFER' | 'ADJUSTMENT';
export type Cause = { kind: CauseKind; id: string };

/**
 * The ledger's outside world, one account per kind and currency. Internal accounts only ever post
 * against these: if a transfer named the other internal account as counter, the two sides' events
 * would each post both legs and the pair would count the movement twice. Transfers clear through
 * TRANSFER_CLEARING instead, whose balance returns to zero once both legs are recorded.
 */
export type SystemAccountKind = 'FUNDING_RAIL' | 'PAYOUT_RAIL' | 'FX' | 'FEES' | 'TRANSFER_CLEARING';
export const systemAccountKinds: readonly SystemAccountKind[] = ['FUNDING_RAIL', 'PAYOUT_RAIL', 'FX', 'FEES', 'TRANSFER_CLEARING'];
export const systemAccountId = (kind: SystemAccountKind, currency: string): string => `SystemAccount:${kind}:${currency}`;
export const isSystemAccountOf = (currency: string, accountId: string): boolean =>
  systemAccountKinds.some((kind) => systemAccountId(kind, currency) === accountId);

type Balance = { accountId: string; operationId: string; amount: string; currency: string; cause: Cause; counterAccountId: string };

export type InternalAccountOpened = Event<
  'InternalAccountOpened',
  {
    accountId: string;
    platformId: string;
    customerId: string | null;
    accountType: InternalAccountType;
    currency: string;
    status: 'PENDING' | 'ACTIVE';
    operationId: string;
    openedAt: string;
  }
>;
export type AccountCredited = Event<'AccountCredited', Balance & { creditedAt: string }>;
export type AccountDebited = Event<'AccountDebited', Balance & { debitedAt: string }>;
/** counterAccountId is where the money goes when the hold settles; the hold itself posts nothing. */
export type FundsHeld = Event<'FundsHeld', Balance & { holdId: string; heldAt: string }>;
/** amount left the account; releasedAmount (the rest of the hold) went back to available. */
/**
 * remainingAmount (absent = 0): what stays reserved after a partial settle that keeps the hold
 * open (a card's partial clearing); the hold closes only when nothing remains.
 */
export type HoldSettled = Event<'HoldSettled', Balance & { holdId: string; releasedAmount: string; remainingAmount?: string; settledAt: string }>;
export type HoldReleased = Event<
  'HoldReleased',
  { accountId: string; operationId: string; holdId: string; amount: string; currency: string; cause: Cause; releasedAt: string }
>;
export type AccountStatusChanged = Event<
  'AccountStatusChanged',
  { accountId: string; operationId: string; from: InternalAccountStatus; to: InternalAccountStatus; changedAt: string }
>;
/** An Embedded Wallet's privacy setting, changed through the signed retry (apps/accounts/src/embedded-wallets). */
export type AccountPrivacyChanged = Event<'AccountPrivacyChanged', { accountId: string; operationId: string; privateEnabled: boolean; changedAt: string }>;
export type InternalAccountEvent =
  | AccountPrivacyChanged
  | InternalAccountOpened
  | AccountCredited
  | AccountDebited
  | FundsHeld
  | HoldSettled
  | HoldReleased
  | AccountStatusChanged;

export type Hold = { amount: bigint; cause: Cause; counterAccountId: string };

export type OpenAccount = {
  kind: 'Open';
  accountId: string;
  platformId: string;
  customerId: string | null;
  accountType: InternalAccountType;
  currency: string;
  status: InternalAccountStatus;
  available: bigint;
  held: bigint;
  /** Open holds only; a settled or released hold moves to closedHolds. */
  holds: ReadonlyMap<string, Hold>;
  /** Original amount of every hold that was settled or released, so a hold id is never reused. */
  closedHolds: ReadonlyMap<string, bigint>;
  /** Caller's operation id → fingerprint of what it asked for, to tell a retry from a clash. */
  operations: ReadonlyMap<string, string>;
  /** Embedded Wallet accounts only; absent means false. */
  privateEnabled?: boolean;
};
export type InternalAccount = { kind: 'None' } | OpenAccount;

export const initialInternalAccount = (): InternalAccount => ({ kind: 'None' });

/**
 * A canonical description of a request, equal for a retry and different for anything else. The
 * deciders build it from the command and evolve builds it from the event, so both must agree.
 */
export const fingerprints = {
  open: (platformId: string, customerId: string | null, accountType: string, currency: string, status: string) =>
    ['Open', platformId, customerId ?? '-', accountType, currency, status].join('|'),
  movement: (verb: 'Credit' | 'Debit' | 'Hold', amount: bigint | string, currency: string, cause: Cause, counterAccountId: string, holdId = '-') =>
    [verb, holdId, amount.toString(), currency, cause.kind, cause.id, counterAccountId].join('|'),
  settle: (holdId: string, finalAmount: bigint | string, keepRemainder = false) =>
    ['Settle', holdId, finalAmount.toString(), ...(keepRemainder ? ['keep'] : [])].join('|'),
  release: (holdId: string) => ['Release', holdId].join('|'),
  status: (to: InternalAccountStatus) => ['Status', to].join('|'),
  privacy: (privateEnabled: boolean) => ['Privacy', String(privateEnabled)].join('|'),
};

/**
 * operations and closedHolds only ever gain keys and grow with every movement, so they are
 * AppendOnlyMaps: adding to the newest version is O(1) instead of a copy of the whole history.
 * A plain Map (a hand-built state) is taken over once.
 */
const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> =>
  (map instanceof AppendOnlyMap ? (map as AppendOnlyMap<string, V>) : AppendOnlyMap.of(map)).with(key, value);

const withOperation = (account: OpenAccount, operationId: string, fingerprint: string): ReadonlyMap<string, string> =>
  withEntry(account.operations, operationId, fingerprint);

const withoutHold = (account: OpenAccount, holdId: string): ReadonlyMap<string, Hold> => {
  const holds = new Map(account.holds);
  holds.delete(holdId);
  return holds;
};

// Copying the small map of open holds keeps evolve pure; the ever-growing records (operations,
// closedHolds) are AppendOnlyMaps, whose versions are immutable without a copy per event.
const evolveOpen = (account: OpenAccount, event: Exclude<InternalAccountEvent, InternalAccountOpened>): OpenAccount => {
  switch (event.type) {
    case 'AccountCredited': {
      const { operationId, amount, currency, cause, counterAccountId } = event.data;
      const operations = withOperation(account, operationId, fingerprints.movement('Credit', amount, currency, cause, counterAccountId));
      return { ...account, available: account.available + BigInt(amount), operations };
    }
    case 'AccountDebited': {
      const { operationId, amount, currency, cause, counterAccountId } = event.data;
      const operations = withOperation(account, operationId, fingerprints.movement('Debit', amount, currency, cause, counterAccountId));
      return { ...account, available: account.available - BigInt(amount), operations };
    }
    case 'FundsHeld': {
      const { operationId, holdId, amount, currency, cause, counterAccountId } = event.data;
      const value = BigInt(amount);
      const holds = new Map(account.holds).set(holdId, { amount: value, cause, counterAccountId });
      const operations = withOperation(account, operationId, fingerprints.movement('Hold', amount, currency, cause, counterAccountId, holdId));
      return { ...account, available: account.available - value, held: account.held + value, holds, operations };
    }
    case 'HoldSettled': {
      const { operationId, holdId, amount, releasedAmount, remainingAmount } = event.data;
      const settled = BigInt(amount);
      const released = BigInt(releasedAmount);
      const remaining = BigInt(remainingAmount ?? '0');
      const hold = account.holds.get(holdId);
      const keptRemainder = remainingAmount !== undefined;
      if (keptRemainder && remaining > 0n && hold) {
        // A partial settle that keeps the hold: the rest stays reserved under the same id.
        return {
          ...account,
          held: account.held - settled,
          holds: new Map(account.holds).set(holdId, { ...hold, amount: remaining }),
          operations: withOperation(account, operationId, fingerprints.settle(holdId, amount, true)),
        };
      }
      return {
        ...account,
        available: account.available + released,
        held: account.held - settled - released,
        holds: withoutHold(account, holdId),
        // What the hold reserved at its start is not known here after partial settles; closedHolds
        // serves a retry that left out the amount, which a keepRemainder settle never does.
        closedHolds: withEntry(account.closedHolds, holdId, settled + released),
        operations: withOperation(account, operationId, fingerprints.settle(holdId, amount, keptRemainder)),
      };
    }
    case 'HoldReleased': {
      const { operationId, holdId, amount } = event.data;
      const released = BigInt(amount);
      return {
        ...account,
        available: account.available + released,
        held: account.held - released,
        holds: withoutHold(account, holdId),
        closedHolds: withEntry(account.closedHolds, holdId, released),
        operations: withOperation(account, operationId, fingerprints.release(holdId)),
      };
    }
    case 'AccountStatusChanged':
      return { ...account, status: event.data.to, operations: withOperation(account, event.data.operationId, fingerprints.status(event.data.to)) };
    case 'AccountPrivacyChanged':
      return { ...account, privateEnabled: event.data.privateEnabled, operations: withOperation(account, event.data.operationId, fingerprints.privacy(event.data.privateEnabled)) };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const evolveInternalAccount = (state: InternalAccount, event: InternalAccountEvent): InternalAccount => {
  if (event.type === 'InternalAccountOpened') {
    const { accountId, platformId, customerId, accountType, currency, status, operationId } = event.data;
    return {
      kind: 'Open',
      accountId,
      platformId,
      customerId,
      accountType,
      currency,
      status,
      available: 0n,
      held: 0n,
      holds: new Map(),
      closedHolds: AppendOnlyMap.empty(),
      operations: AppendOnlyMap.of([[operationId, fingerprints.open(platformId, customerId, accountType, currency, status)]]),
    };
  }
  // A recorded event is never refused; one that precedes the opening has nothing to apply to.
  return state.kind === 'None' ? state : evolveOpen(state, event);
};

export const internalAccountDecider = { evolve: evolveInternalAccount, initialState: initialInternalAccount };

export type Balances = { balance: bigint; totalBalance: bigint };

/** balance is what can be spent now; totalBalance also counts funds held for pending payments. */
export const balancesOf = (state: InternalAccount): Balances =>
  state.kind === 'None' ? { balance: 0n, totalBalance: 0n } : { balance: state.available, totalBalance: state.available + state.held };

/**
 * The double-entry reading of these events lives in libs/contracts (postingsOf), so the
 * conservation checker of libs/testing reads the same rules. Both directions of this check fail
 * to compile when an event type is added here without deciding what it posts there.
 */
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _everyEventPosts: Exactly<InternalAccountEvent['type'], LedgerEventType> = true;
