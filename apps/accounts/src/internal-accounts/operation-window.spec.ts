// Pins down the bounded memory of operation ids (docs/decisions/0018): an account's state keeps
// the last W operation ids and closed holds; an id older than the window is never guessed to be
// new — the decider asks for it (NeedsRecall) and answers from what the writer recalls.
import { deciderSpec } from '@corridor/testing';
import { closedHoldAmount, NeedsRecall } from './account-rules';
import { creditAccount, type CreditAccount } from './credit-account';
import { holdFunds, type HoldFunds } from './hold-funds';
import {
  fingerprintOf,
  initialInternalAccount,
  internalAccountEvolver,
  internalAccountSnapshot,
  type InternalAccount,
  type InternalAccountEvent,
  type OpenAccount,
  recallFrom,
  type Recalled,
  withRecalled,
} from './internal-account';
import {
  creditCommand,
  credited,
  held,
  holdCommand,
  holdId,
  openCommand,
  opened,
  released,
  settleCommand,
} from './internal-account.fixtures';
import { openInternalAccount, type OpenInternalAccount } from './open-internal-account';
import { settleHold, type SettleHold } from './settle-hold';

const WINDOW = 3;
const evolve = internalAccountEvolver(WINDOW);
const fold = (events: InternalAccountEvent[]): InternalAccount => events.reduce(evolve, initialInternalAccount());
const recalling = (recalled: Recalled | undefined) => ({
  credit: deciderSpec({
    decide: (command: CreditAccount, state: InternalAccount) => creditAccount(command, withRecalled(state, recalled)),
    evolve,
    initialState: initialInternalAccount,
  }).given,
  hold: deciderSpec({
    decide: (command: HoldFunds, state: InternalAccount) => holdFunds(command, withRecalled(state, recalled)),
    evolve,
    initialState: initialInternalAccount,
  }).given,
  settle: deciderSpec({
    decide: (command: SettleHold, state: InternalAccount) => settleHold(command, withRecalled(state, recalled)),
    evolve,
    initialState: initialInternalAccount,
  }).given,
  open: deciderSpec({
    decide: (command: OpenInternalAccount, state: InternalAccount) => openInternalAccount(command, withRecalled(state, recalled)),
    evolve,
    initialState: initialInternalAccount,
  }).given,
});
const { credit: given } = recalling(undefined);
const recalled = (operations: [string, string | null][], closedHolds: [string, bigint | null][] = []): Recalled => ({
  operations: new Map(operations),
  closedHolds: new Map(closedHolds),
});
const asksFor =
  (operationIds: string[], holdIds: string[] = []) =>
  (error: unknown) =>
    error instanceof NeedsRecall && JSON.stringify([error.operationIds, error.holdIds]) === JSON.stringify([operationIds, holdIds]);

// op-open, op-1, op-2, op-3: the window of 3 holds op-1..op-3 and has let op-open go.
const full = [opened(), credited('10', 'op-1'), credited('20', 'op-2'), credited('30', 'op-3')];

describe('The operation window (W = 3)', () => {
  it('keeps the last W operation ids in the state and counts the rest', () => {
    const state = fold([...full, credited('40', 'op-4')]) as OpenAccount;
    expect([...state.operations.keys()]).toEqual(['op-2', 'op-3', 'op-4']);
    expect(state.available).toBe(100n);
  });

  it('answers a repeat of the oldest id still inside the window from the state', () =>
    given(full)
      .when(creditCommand({ operationId: 'op-1', amount: 10n }))
      .thenNothingHappened());

  it('decides a new operation on an account that has forgotten nothing without asking', () =>
    given([opened(), credited('10', 'op-1')])
      .when(creditCommand({ operationId: 'op-9', amount: 5n }))
      .then([credited('5', 'op-9')]));

  it('asks for an id one past the window instead of applying it again', () => {
    const decide = () => creditAccount(creditCommand({ operationId: 'op-1', amount: 10n }), fold([...full, credited('40', 'op-4')]));
    expect(decide).toThrow(NeedsRecall);
    given([...full, credited('40', 'op-4')])
      .when(creditCommand({ operationId: 'op-1', amount: 10n }))
      .thenThrows(asksFor(['op-1']));
  });

  it('asks for a brand-new id too once the account has forgotten some: "not in the window" is not "never seen"', () => {
    expect(() => creditAccount(creditCommand({ operationId: 'op-new', amount: 1n }), fold(full))).toThrow(NeedsRecall);
  });

  it('answers a recalled repeat with nothing, and a recalled clash with a conflict', () => {
    const fingerprint = fingerprintOf(credited('10', 'op-1'));
    const events = [...full, credited('40', 'op-4')];
    recalling(recalled([['op-1', fingerprint]]))
      .credit(events)
      .when(creditCommand({ operationId: 'op-1', amount: 10n }))
      .thenNothingHappened();
    recalling(recalled([['op-1', fingerprint]]))
      .credit(events)
      .when(creditCommand({ operationId: 'op-1', amount: 11n }))
      .thenThrows((error) => error.code === 'CONFLICT');
  });

  it('applies an operation the recall says the account never saw', () =>
    recalling(recalled([['op-new', null]]))
      .credit(full)
      .when(creditCommand({ operationId: 'op-new', amount: 5n }))
      .then([credited('5', 'op-new')]));

  // Every CustomerUpdated that lists the account's currency opens it again, however busy the account has been since.
  it('asks for an opening the window let go of instead of calling its repeat a conflict, and decides nothing once recalled', () => {
    recalling(undefined)
      .open(full)
      .when(openCommand())
      .thenThrows(asksFor(['op-open']));
    recalling(recalled([['op-open', fingerprintOf(opened())]]))
      .open(full)
      .when(openCommand())
      .thenNothingHappened();
    recalling(recalled([['op-open', fingerprintOf(opened())]]))
      .open(full)
      .when(openCommand({ currency: 'EUR' }))
      .thenThrows((error) => error.code === 'CONFLICT');
  });

  it('asks for a closed hold older than the window before reusing its id, and refuses the reuse once recalled', () => {
    // Window 3 of closed holds: hold-0 closed first, then three more pushed it out.
    const closing = (id: string, index: number): InternalAccountEvent[] => {
      const release = released('1', `op-release-${index}`);
      return [held('1', `op-hold-${index}`, id), { ...release, data: { ...release.data, holdId: id } } as InternalAccountEvent];
    };
    const events = [opened(), credited('100', 'op-fund'), ...['hold-0', 'hold-1', 'hold-2', 'hold-3'].flatMap(closing)];
    const state = fold(events) as OpenAccount;
    expect([...state.closedHolds.keys()]).toEqual(['hold-1', 'hold-2', 'hold-3']);
    const reuse = holdCommand({ operationId: 'op-again', holdId: 'hold-0', amount: 5n });
    recalling(recalled([['op-again', null]]))
      .hold(events)
      .when(reuse)
      .thenThrows(asksFor([], ['hold-0']));
    recalling(recalled([['op-again', null]], [['hold-0', 1n]]))
      .hold(events)
      .when(reuse)
      .thenThrows((error) => error.code === 'HOLD_EXISTS');
  });

  it('answers a settle retry that left out the amount from the recalled hold', () => {
    const events = [
      opened(),
      credited('1000', 'op-fund'),
      held('300'),
      settleEvent(),
      credited('1', 'op-a'),
      credited('1', 'op-b'),
      credited('1', 'op-c'),
    ];
    const state = fold(events) as OpenAccount;
    expect(state.operations.has('op-settle')).toBe(false);
    expect(() => closedHoldAmount(state, holdId)).not.toThrow();
    recalling(recalled([['op-settle', fingerprintOf(events[3]!)]]))
      .settle(events)
      .when(settleCommand())
      .thenNothingHappened();
  });

  it('recalls from the events what evolve remembered', () => {
    const events = [...full, held('5', 'op-h', 'hold-x'), settleEvent('hold-x', '5', 'op-s')];
    const recall = recallFrom(events, ['op-2', 'op-s', 'op-none'], ['hold-x', 'hold-none']);
    expect(recall.operations).toEqual(
      new Map([
        ['op-2', fingerprintOf(credited('20', 'op-2'))],
        ['op-s', fingerprintOf(events[5]!)],
        ['op-none', null],
      ]),
    );
    expect(recall.closedHolds).toEqual(
      new Map([
        ['hold-x', 5n],
        ['hold-none', null],
      ]),
    );
  });

  it('snapshots to JSON and back to the state a full fold gives, window included', () => {
    const codec = internalAccountSnapshot(WINDOW);
    const events = [...full, held('5', 'op-h', 'hold-x'), credited('1', 'op-z')];
    const state = fold(events);
    const restored = codec.deserialize(JSON.parse(JSON.stringify(codec.serialize(state))));
    const next = credited('2', 'op-y');
    expect(codec.serialize(evolve(restored, next))).toEqual(codec.serialize(evolve(state, next)));
    expect((restored as OpenAccount).holds.get('hold-x')?.amount).toBe(5n);
    expect([...(restored as OpenAccount).operations.keys()]).toEqual(['op-3', 'op-h', 'op-z']);
    expect(codec.deciderVersion).toContain('window=3');
  });
});

function settleEvent(id = holdId, amount = '300', operationId = 'op-settle'): InternalAccountEvent {
  return {
    type: 'HoldSettled',
    data: {
      accountId: opened().data.accountId as string,
      operationId,
      holdId: id,
      amount,
      releasedAmount: '0',
      currency: 'USD',
      cause: { kind: 'TRANSACTION', id: 'Transaction:x' },
      counterAccountId: 'SystemAccount:PAYOUT_RAIL:USD',
      settledAt: '2026-03-01T10:00:00.000Z',
    },
  } as InternalAccountEvent;
}
