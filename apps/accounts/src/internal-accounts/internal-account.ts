import type { Event, LedgerEventType } from '@corridor/contracts';
import { WindowedMap } from './windowed-map';

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
export type HoldSettled = Event<
  'HoldSettled',
  Balance & { holdId: string; releasedAmount: string; remainingAmount?: string; settledAt: string }
>;
export type HoldReleased = Event<
  'HoldReleased',
  { accountId: string; operationId: string; holdId: string; amount: string; currency: string; cause: Cause; releasedAt: string }
>;
export type AccountStatusChanged = Event<
  'AccountStatusChanged',
  { accountId: string; operationId: string; from: InternalAccountStatus; to: InternalAccountStatus; changedAt: string }
>;
/** An Embedded Wallet's privacy setting, changed through the signed retry (apps/accounts/src/embedded-wallets). */
export type AccountPrivacyChanged = Event<
  'AccountPrivacyChanged',
  { accountId: string; operationId: string; privateEnabled: boolean; changedAt: string }
>;
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
  /**
   * Original amount of the last `window` holds that were settled or released, so a hold id is
   * never reused; older ones are recalled from the stream's index (see Recalled).
   */
  closedHolds: ReadonlyMap<string, bigint>;
  /**
   * Caller's operation id → fingerprint of what it asked for, to tell a retry from a clash: the
   * last `window` operations (LEDGER_OPERATION_WINDOW); older ones are recalled from the stream's index.
   */
  operations: ReadonlyMap<string, string>;
  /** Only while deciding: what the writer looked up for ids the windows no longer hold. Never in a folded state. */
  recalled?: Recalled;
  /** Embedded Wallet accounts only; absent means false. */
  privateEnabled?: boolean;
};

/**
 * Operation and hold ids older than the windows, looked up in the account's own events (an index
 * on the events table, written in the append's own transaction): the fingerprint or closed
 * amount recorded for the id, or null when the account never saw it.
 */
export type Recalled = { operations: ReadonlyMap<string, string | null>; closedHolds: ReadonlyMap<string, bigint | null> };
export type InternalAccount = { kind: 'None' } | OpenAccount;

export const initialInternalAccount = (): InternalAccount => ({ kind: 'None' });

/** Operation ids (and closed hold ids) an account's state remembers; older ones are recalled from the events. */
export const DEFAULT_OPERATION_WINDOW = 10_000;

/**
 * A canonical description of a request, equal for a retry and different for anything else. The
 * deciders build it from the command and evolve builds it from the event, so both must agree.
 */
export const fingerprints = {
  open: (platformId: string, customerId: string | null, accountType: string, currency: string, status: string) =>
    ['Open', platformId, customerId ?? '-', accountType, currency, status].join('|'),
  movement: (
    verb: 'Credit' | 'Debit' | 'Hold',
    amount: bigint | string,
    currency: string,
    cause: Cause,
    counterAccountId: string,
    holdId = '-',
  ) => [verb, holdId, amount.toString(), currency, cause.kind, cause.id, counterAccountId].join('|'),
  settle: (holdId: string, finalAmount: bigint | string, keepRemainder = false) =>
    ['Settle', holdId, finalAmount.toString(), ...(keepRemainder ? ['keep'] : [])].join('|'),
  release: (holdId: string) => ['Release', holdId].join('|'),
  status: (to: InternalAccountStatus) => ['Status', to].join('|'),
  privacy: (privateEnabled: boolean) => ['Privacy', String(privateEnabled)].join('|'),
};

/**
 * operations and closedHolds gain a key with every movement, so they are WindowedMaps: adding to
 * the newest version is O(1) instead of a copy, and only the last `window` keys are kept. A plain
 * Map (a hand-built state) is taken over once, with the default window.
 */
const withEntry = <V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> =>
  (map instanceof WindowedMap ? (map as WindowedMap<string, V>) : WindowedMap.of(map, Math.max(DEFAULT_OPERATION_WINDOW, map.size))).with(
    key,
    value,
  );

/** How many keys a window has let go of (0 for a plain Map, which remembers everything). */
export const forgottenIn = (map: ReadonlyMap<string, unknown>): number => (map instanceof WindowedMap ? map.forgotten : 0);

/**
 * The fingerprint an operation's event records: evolve remembers it, and a recall from the
 * events computes it the same way, so both answer a retry alike.
 */
export const fingerprintOf = (event: InternalAccountEvent): string => {
  switch (event.type) {
    case 'InternalAccountOpened': {
      const { platformId, customerId, accountType, currency, status } = event.data;
      return fingerprints.open(platformId, customerId, accountType, currency, status);
    }
    case 'AccountCredited':
    case 'AccountDebited': {
      const { amount, currency, cause, counterAccountId } = event.data;
      return fingerprints.movement(event.type === 'AccountCredited' ? 'Credit' : 'Debit', amount, currency, cause, counterAccountId);
    }
    case 'FundsHeld': {
      const { amount, currency, cause, counterAccountId, holdId } = event.data;
      return fingerprints.movement('Hold', amount, currency, cause, counterAccountId, holdId);
    }
    case 'HoldSettled':
      return fingerprints.settle(event.data.holdId, event.data.amount, event.data.remainingAmount !== undefined);
    case 'HoldReleased':
      return fingerprints.release(event.data.holdId);
    case 'AccountStatusChanged':
      return fingerprints.status(event.data.to);
    case 'AccountPrivacyChanged':
      return fingerprints.privacy(event.data.privateEnabled);
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

/** The amount a closing event records for its hold (settled + released), or undefined when the hold stays open. */
const closedAmountOf = (event: InternalAccountEvent): bigint | undefined => {
  if (event.type === 'HoldReleased') return BigInt(event.data.amount);
  if (event.type !== 'HoldSettled') return undefined;
  const { amount, releasedAmount, remainingAmount } = event.data;
  if (remainingAmount !== undefined && BigInt(remainingAmount) > 0n) return undefined;
  return BigInt(amount) + BigInt(releasedAmount);
};

/**
 * What an account's events say about ids its windows let go of: each operation id's recorded
 * fingerprint and each hold id's closed amount, null for an id none of the events carries.
 */
export const recallFrom = (
  events: readonly InternalAccountEvent[],
  operationIds: readonly string[],
  holdIds: readonly string[],
): Recalled => {
  const operations = new Map<string, string | null>(operationIds.map((id) => [id, null]));
  const closedHolds = new Map<string, bigint | null>(holdIds.map((id) => [id, null]));
  for (const event of events) {
    if (operations.has(event.data.operationId)) operations.set(event.data.operationId, fingerprintOf(event));
    const holdId = 'holdId' in event.data ? event.data.holdId : undefined;
    const closed = closedAmountOf(event);
    if (holdId !== undefined && closed !== undefined && closedHolds.has(holdId)) closedHolds.set(holdId, closed);
  }
  return { operations, closedHolds };
};

/** The state a decision sees: the folded one plus what was recalled for it. */
export const withRecalled = (state: InternalAccount, recalled: Recalled | undefined): InternalAccount =>
  recalled === undefined || state.kind === 'None' ? state : { ...state, recalled };

const withOperation = (account: OpenAccount, operationId: string, fingerprint: string): ReadonlyMap<string, string> =>
  withEntry(account.operations, operationId, fingerprint);

const withoutHold = (account: OpenAccount, holdId: string): ReadonlyMap<string, Hold> => {
  const holds = new Map(account.holds);
  holds.delete(holdId);
  return holds;
};

// Copying the small map of open holds keeps evolve pure; the ever-growing records (operations,
// closedHolds) are WindowedMaps, whose versions are immutable without a copy per event.
const evolveOpen = (account: OpenAccount, event: Exclude<InternalAccountEvent, InternalAccountOpened>): OpenAccount => {
  switch (event.type) {
    case 'AccountCredited': {
      const operations = withOperation(account, event.data.operationId, fingerprintOf(event));
      return { ...account, available: account.available + BigInt(event.data.amount), operations };
    }
    case 'AccountDebited': {
      const operations = withOperation(account, event.data.operationId, fingerprintOf(event));
      return { ...account, available: account.available - BigInt(event.data.amount), operations };
    }
    case 'FundsHeld': {
      const { operationId, holdId, amount, cause, counterAccountId } = event.data;
      const value = BigInt(amount);
      const holds = new Map(account.holds).set(holdId, { amount: value, cause, counterAccountId });
      const operations = withOperation(account, operationId, fingerprintOf(event));
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
          operations: withOperation(account, operationId, fingerprintOf(event)),
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
        operations: withOperation(account, operationId, fingerprintOf(event)),
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
        operations: withOperation(account, operationId, fingerprintOf(event)),
      };
    }
    case 'AccountStatusChanged':
      return { ...account, status: event.data.to, operations: withOperation(account, event.data.operationId, fingerprintOf(event)) };
    case 'AccountPrivacyChanged':
      return {
        ...account,
        privateEnabled: event.data.privateEnabled,
        operations: withOperation(account, event.data.operationId, fingerprintOf(event)),
      };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

/** evolve with the windows of remembered ids set to `window` keys each. */
export const internalAccountEvolver =
  (window: number) =>
  (state: InternalAccount, event: InternalAccountEvent): InternalAccount => {
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
        closedHolds: WindowedMap.empty(window),
        operations: WindowedMap.of([[operationId, fingerprints.open(platformId, customerId, accountType, currency, status)]], window),
      };
    }
    // A recorded event is never refused; one that precedes the opening has nothing to apply to.
    return state.kind === 'None' ? state : evolveOpen(state, event);
  };

/**
 * evolve with the default window. The window only shapes the state an opening creates, so folding
 * other events onto a state (hold-and-settle's hold) is the same under any window; the writer
 * folds with the configured one (LEDGER_OPERATION_WINDOW, read in config.ts).
 */
export const evolveInternalAccount = internalAccountEvolver(DEFAULT_OPERATION_WINDOW);

type SavedWindow<V> = { limit: number; forgotten: number; entries: [string, V][] };
type SavedAccount =
  | { kind: 'None' }
  | (Omit<OpenAccount, 'available' | 'held' | 'holds' | 'closedHolds' | 'operations' | 'recalled'> & {
      available: string;
      held: string;
      holds: [string, { amount: string; cause: Cause; counterAccountId: string }][];
      closedHolds: SavedWindow<string>;
      operations: SavedWindow<string>;
    });

const savedWindow = <V>(map: ReadonlyMap<string, V>, window: number): SavedWindow<V> =>
  map instanceof WindowedMap
    ? (map as WindowedMap<string, V>).toJSON()
    : { limit: Math.max(window, map.size), forgotten: 0, entries: [...map] };

/**
 * The state as a snapshot keeps it (JSON: bigints as decimal strings, maps as entry lists in
 * order). The version names the rules and the window, since a snapshot folded with another window
 * would not be the state a full read gives.
 */
export const internalAccountSnapshot = (window: number) => ({
  deciderVersion: `internal-account/1;window=${window}`,
  serialize: (state: InternalAccount): SavedAccount => {
    if (state.kind === 'None') return state;
    const { recalled: _decisionOnly, available, held, holds, closedHolds, operations, ...rest } = state;
    return {
      ...rest,
      available: available.toString(),
      held: held.toString(),
      holds: [...holds].map(([id, hold]) => [id, { ...hold, amount: hold.amount.toString() }]),
      closedHolds: ((saved) => ({ ...saved, entries: saved.entries.map(([id, amount]): [string, string] => [id, amount.toString()]) }))(
        savedWindow(closedHolds, window),
      ),
      operations: savedWindow(operations, window),
    };
  },
  deserialize: (json: unknown): InternalAccount => {
    const saved = json as SavedAccount;
    if (saved.kind === 'None') return saved;
    const { available, held, holds, closedHolds, operations, ...rest } = saved;
    return {
      ...rest,
      available: BigInt(available),
      held: BigInt(held),
      holds: new Map(holds.map(([id, hold]) => [id, { ...hold, amount: BigInt(hold.amount) }])),
      closedHolds: WindowedMap.restore({
        ...closedHolds,
        entries: closedHolds.entries.map(([id, amount]) => [id, BigInt(amount)] as [string, bigint]),
      }),
      operations: WindowedMap.restore(operations),
    };
  },
});

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
