// Pins down the ledger's invariants: each event's postings balance, balances are the sum of an
// account's postings, and no sequence of accepted commands takes available or held below zero.
import { DomainError, type Posting, postingsOf, sumPostings } from '@corridor/contracts';
import { changeAccountStatus } from './change-account-status';
import { creditAccount } from './credit-account';
import { debitAccount } from './debit-account';
import { holdFunds } from './hold-funds';
import {
  balancesOf,
  evolveInternalAccount,
  initialInternalAccount,
  type InternalAccount,
  type InternalAccountEvent,
  type SystemAccountKind,
  systemAccountId,
} from './internal-account';
import { credited, debited, fundingRail, held, opened, payoutRail, released, settled, statusChanged } from './internal-account.fixtures';
import { openInternalAccount } from './open-internal-account';
import { releaseHold } from './release-hold';
import { settleHold } from './settle-hold';

const replay = (events: InternalAccountEvent[]): InternalAccount => events.reduce(evolveInternalAccount, initialInternalAccount());
const sumBy = (postings: Posting[], key: (posting: Posting) => string): Map<string, bigint> => sumPostings(postings, key);

describe('postingsOf', () => {
  it('credits the account against the counter account', () =>
    expect(postingsOf(credited('1000'))).toEqual([
      { accountId: opened().data['accountId'], currency: 'USD', amount: 1000n },
      { accountId: fundingRail, currency: 'USD', amount: -1000n },
    ]));

  it('posts the settled amount only, not the released remainder', () =>
    expect(postingsOf(settled('250', '50'))).toEqual([
      { accountId: opened().data['accountId'], currency: 'USD', amount: -250n },
      { accountId: payoutRail, currency: 'USD', amount: 250n },
    ]));

  it('posts nothing for holds, releases, openings and status changes', () =>
    expect([opened(), held(), released(), statusChanged('ACTIVE', 'FROZEN')].flatMap(postingsOf)).toEqual([]));

  it('balances every event to zero', () =>
    [credited(), debited(), settled('250', '50')].forEach((event) =>
      expect(postingsOf(event).reduce((sum, posting) => sum + posting.amount, 0n)).toBe(0n),
    ));
});

describe('balancesOf', () => {
  it('counts held funds in totalBalance only', () =>
    expect(balancesOf(replay([opened(), credited('1000'), held('300')]))).toEqual({ balance: 700n, totalBalance: 1000n }));

  it('returns the rest of a partly settled hold to available', () =>
    expect(balancesOf(replay([opened(), credited('1000'), held('300'), settled('250', '50')]))).toEqual({
      balance: 750n,
      totalBalance: 750n,
    }));

  it('is zero for an account that does not exist', () =>
    expect(balancesOf(initialInternalAccount())).toEqual({ balance: 0n, totalBalance: 0n }));
});

/** mulberry32: a tiny deterministic PRNG, so a failing sequence can be replayed from its seed. */
const prng = (seed: number) => {
  let value = seed >>> 0;
  return (): number => {
    value = (value + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(value ^ (value >>> 15), 1 | value);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
};

type Decide = (state: InternalAccount) => InternalAccountEvent[];

const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
const accounts = [
  { accountId: 'InternalAccount:0196f1a0-0000-7000-8000-000000000101', currency: 'USD' },
  { accountId: 'InternalAccount:0196f1a0-0000-7000-8000-000000000102', currency: 'USD' },
  { accountId: 'InternalAccount:0196f1a0-0000-7000-8000-000000000103', currency: 'EUR' },
];
const rails: SystemAccountKind[] = ['FUNDING_RAIL', 'PAYOUT_RAIL', 'FX', 'FEES', 'TRANSFER_CLEARING'];

const randomCommand = (random: () => number, step: number, account: (typeof accounts)[number], state: InternalAccount): Decide => {
  const now = new Date(Date.UTC(2026, 2, 1) + step * 1000);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const { accountId, currency } = account;
  const operationId = `op-${step}`;
  const amount = BigInt(1 + Math.floor(random() * 500));
  const cause = { kind: pick(['FUNDING', 'TRANSACTION', 'CARD_SETTLEMENT', 'TRANSFER', 'ADJUSTMENT'] as const), id: `Cause:${step}` };
  const counterAccountId = systemAccountId(pick(rails), currency);
  const movement = { accountId, platformId, operationId, amount, currency, cause, counterAccountId };
  const holdIds = state.kind === 'Open' ? [...state.holds.keys()] : [];
  const roll = random();
  if (roll < 0.3) return (s) => creditAccount({ type: 'CreditAccount', data: movement, metadata: { now } }, s);
  if (roll < 0.45) return (s) => debitAccount({ type: 'DebitAccount', data: movement, metadata: { now } }, s);
  if (roll < 0.7) return (s) => holdFunds({ type: 'HoldFunds', data: { ...movement, holdId: `Hold:${step}` }, metadata: { now } }, s);
  if (roll < 0.82 && holdIds.length > 0) {
    const holdId = pick(holdIds);
    const partial = random() < 0.5 ? { amount: BigInt(1 + Math.floor(random() * 10)) } : {};
    return (s) =>
      settleHold({ type: 'SettleHold', data: { accountId, platformId, operationId, holdId, ...partial }, metadata: { now } }, s);
  }
  if (roll < 0.94 && holdIds.length > 0) {
    const holdId = pick(holdIds);
    return (s) => releaseHold({ type: 'ReleaseHold', data: { accountId, platformId, operationId, holdId }, metadata: { now } }, s);
  }
  const to = pick(['ACTIVE', 'FROZEN'] as const);
  return (s) =>
    changeAccountStatus({ type: 'ChangeAccountStatus', data: { accountId, platformId, operationId, to }, metadata: { now } }, s);
};

const decideOrRefuse = (decide: Decide, state: InternalAccount): InternalAccountEvent[] => {
  try {
    return decide(state);
  } catch (error) {
    // Only rule refusals are expected here (funds, a frozen account); anything else is a bug.
    if (error instanceof DomainError && ['INSUFFICIENT_FUNDS', 'ACCOUNT_FROZEN', 'INVALID_AMOUNT'].includes(error.code)) return [];
    throw error;
  }
};

const expectConsistent = (state: InternalAccount): void => {
  if (state.kind === 'None') throw new Error('The account was not opened.');
  expect(state.available >= 0n && state.held >= 0n).toBe(true);
  expect([...state.holds.values()].reduce((sum, hold) => sum + hold.amount, 0n)).toBe(state.held);
};

describe('the ledger over a seeded random sequence', () => {
  it.each([1, 42, 20260301])('conserves money per currency and explains every balance (seed %i)', (seed) => {
    const random = prng(seed);
    const streams = new Map(accounts.map(({ accountId }) => [accountId, [] as InternalAccountEvent[]]));
    const states = new Map<string, InternalAccount>();
    accounts.forEach(({ accountId, currency }, index) => {
      const command = {
        accountId,
        platformId,
        customerId: null,
        accountType: 'INTERNAL_FIAT' as const,
        currency,
        status: 'ACTIVE' as const,
        operationId: `open-${index}`,
      };
      const events = openInternalAccount(
        { type: 'OpenInternalAccount', data: command, metadata: { now: new Date(0) } },
        initialInternalAccount(),
      );
      streams.get(accountId)?.push(...events);
      states.set(accountId, replay(events));
    });

    type Decision = { account: (typeof accounts)[number]; decide: Decide };
    const accepted: Decision[] = [];
    for (let step = 0; step < 2000; step += 1) {
      // One step in ten retries an accepted command, which must now decide nothing.
      const retried = accepted.length > 0 && random() < 0.1 ? accepted[Math.floor(random() * accepted.length)] : undefined;
      const account = retried?.account ?? (accounts[Math.floor(random() * accounts.length)] as (typeof accounts)[number]);
      const state = states.get(account.accountId) as InternalAccount;
      const decide = retried?.decide ?? randomCommand(random, step, account, state);
      const events = decideOrRefuse(decide, state);
      if (retried) expect(events).toEqual([]);
      else if (events.length > 0) accepted.push({ account, decide });
      const next = events.reduce(evolveInternalAccount, state);
      expectConsistent(next);
      states.set(account.accountId, next);
      streams.get(account.accountId)?.push(...events);
    }

    const allEvents = [...streams.values()].flat();
    expect(allEvents.length).toBeGreaterThan(1000);
    const postings = allEvents.flatMap(postingsOf);
    expect([...sumBy(postings, (posting) => posting.currency).values()].every((sum) => sum === 0n)).toBe(true);
    const perAccount = sumBy(postings, (posting) => posting.accountId);
    accounts.forEach(({ accountId }) => {
      const state = replay(streams.get(accountId) ?? []);
      expect(balancesOf(state).totalBalance).toBe(perAccount.get(accountId) ?? 0n);
      expect(state).toEqual(states.get(accountId));
    });
  });
});

describe('postingsOf on stored events', () => {
  it('refuses an event type the ledger does not know, rather than posting nothing for it', () =>
    expect(() => postingsOf({ type: 'AccountTeleported', data: {} })).toThrow(/not an internal-account event/));

  it('refuses a posting event without its counter account', () =>
    expect(() => postingsOf({ type: 'AccountCredited', data: { accountId: 'a', currency: 'USD', amount: '1' } })).toThrow(
      /counterAccountId/,
    ));
});
