// Pins down that deciderSpec passes on the right outcome and fails on every wrong one.
import type { Command, Event } from '@corridor/contracts';
import { DomainError } from '@corridor/contracts';
import { deciderSpec, deciderSpecFor } from './decider-spec';

type Deposit = Command<'Deposit', { amount: number }>;
type Deposited = Event<'Deposited', { amount: number }>;
type Account = { balance: number; closed: boolean };

const decide = (command: Deposit, state: Account): Deposited[] => {
  if (state.closed) throw new DomainError('ACCOUNT_CLOSED', 'conflict', 'The account is closed.');
  if (command.data.amount === 0) return [];
  return [{ type: 'Deposited', data: { amount: command.data.amount } }];
};
const evolve = (state: Account, event: Deposited): Account => ({
  ...state,
  balance: state.balance + event.data.amount,
  // A deposit of exactly -1 closes the account in this toy model, so `given` has a way to close it.
  closed: state.closed || event.data.amount === -1,
});
const spec = deciderSpec({ decide, evolve, initialState: () => ({ balance: 0, closed: false }) });

const deposit = (amount: number): Deposit => ({ type: 'Deposit', data: { amount }, metadata: {} });
const deposited = (amount: number): Deposited => ({ type: 'Deposited', data: { amount } });

describe('deciderSpec', () => {
  it('passes when the decider yields the expected events', () => {
    spec
      .given([deposited(5)])
      .when(deposit(3))
      .then([deposited(3)]);
  });

  it('fails when the events differ', () => {
    expect(() =>
      spec
        .given([])
        .when(deposit(3))
        .then([deposited(4)]),
    ).toThrow();
  });

  it('passes thenNothingHappened on no events and fails otherwise', () => {
    spec.given().when(deposit(0)).thenNothingHappened();
    expect(() => spec.given().when(deposit(1)).thenNothingHappened()).toThrow();
  });

  it('replays the given events before deciding', () => {
    spec
      .given([deposited(-1)])
      .when(deposit(3))
      .thenThrows((error) => error.code === 'ACCOUNT_CLOSED');
  });

  it('fails thenThrows when nothing was thrown', () => {
    expect(() => spec.given().when(deposit(3)).thenThrows()).toThrow(/Expected the decider to throw/);
  });

  it('fails thenThrows when the check returns false or throws', () => {
    const closed = [deposited(-1)];
    expect(() =>
      spec
        .given(closed)
        .when(deposit(3))
        .thenThrows((error) => error.code === 'OTHER'),
    ).toThrow(/did not pass the check: DomainError ACCOUNT_CLOSED/);
    expect(() =>
      spec
        .given(closed)
        .when(deposit(3))
        .thenThrows((error) => {
          expect(error.status).toBe(400);
        }),
    ).toThrow();
  });

  it('fails then() when the decider throws', () => {
    expect(() =>
      spec
        .given([deposited(-1)])
        .when(deposit(3))
        .then([]),
    ).toThrow(/closed/);
  });
});

// An aggregate with a decide function per command: the command type follows the function named.
type Withdraw = Command<'Withdraw', { amount: number }>;
type Withdrawn = Event<'Withdrawn', { amount: number }>;
type Movement = Deposited | Withdrawn;
const withdraw = (command: Withdraw, state: Account): Movement[] => {
  if (state.balance < command.data.amount) throw new DomainError('INSUFFICIENT_BALANCE', 'conflict', 'Not enough.');
  return [{ type: 'Withdrawn', data: { amount: command.data.amount } }];
};
const account = {
  initialState: (): Account => ({ balance: 0, closed: false }),
  evolve: (state: Account, event: Movement): Account =>
    event.type === 'Deposited' ? evolve(state, event) : { ...state, balance: state.balance - event.data.amount },
};

describe('deciderSpecFor', () => {
  const specFor = deciderSpecFor(account);

  it('runs the named decide function over the replayed history', () => {
    specFor(withdraw)
      .given([deposited(5)])
      .when({ type: 'Withdraw', data: { amount: 5 }, metadata: {} })
      .then([{ type: 'Withdrawn', data: { amount: 5 } }]);
    specFor(withdraw)
      .given([deposited(5), { type: 'Withdrawn', data: { amount: 5 } }])
      .when({ type: 'Withdraw', data: { amount: 1 }, metadata: {} })
      .thenThrows((error) => error.code === 'INSUFFICIENT_BALANCE');
  });

  it('takes only the command of the function named (checked by the type checker, npm run typecheck)', () => {
    const run = () =>
      specFor(withdraw)
        .given()
        // @ts-expect-error A misspelt member is not a Withdraw.
        .when({ type: 'Withdraw', data: { amonut: 1 }, metadata: {} })
        .thenNothingHappened();
    const other = () =>
      specFor(withdraw)
        .given()
        // @ts-expect-error Another command of the aggregate is not the one this function decides.
        .when(deposit(1))
        .thenNothingHappened();
    expect(run).toThrow();
    expect(other).toThrow();
  });
});
