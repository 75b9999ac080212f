// The sandbox rail, step by step at the command's time: what each outcome does to a PENDING
// transfer, the 005 wait and its failure only once due, terminal transfers left alone, and which
// ledger step each decision needs before it may be appended.
import { deciderSpec } from '@corridor/testing';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import type { RailOutcome } from '../transactions/transfer-events';
import { type AdvanceTransfer, advanceTransfer, failureReasonOf, ledgerStepOf } from './advance-transfer';
import { createTransfer } from './create-transfer';
import { createdAt, createTransferCommand, transactionId } from './transfer.fixtures';

const spec = deciderSpec<Transaction, AdvanceTransfer, TransactionEvent>({ decide: advanceTransfer, ...transactionDecider });
const at = (iso: string): AdvanceTransfer => ({
  type: 'AdvanceTransfer',
  data: { transactionId },
  metadata: { now: new Date(iso), pendingSeconds: 30 },
});
const created = (outcome: RailOutcome = 'SUCCEEDS', direction: 'OUT' | 'IN' = 'OUT') =>
  createTransfer(createTransferCommand({ outcome, direction }), transactionDecider.initialState());
const stateOf = (events: TransactionEvent[]): Transaction => events.reduce(transactionDecider.evolve, transactionDecider.initialState());
const record = (events: TransactionEvent[]) => {
  const state = stateOf(events);
  if (state.kind !== 'Transfer') throw new Error('not a transfer');
  return state.transaction;
};
const later = '2026-03-01T10:00:01.000Z';

describe('AdvanceTransfer', () => {
  it('hands a PENDING transfer to the rail and, when it succeeds, completes it with settledAt', () => {
    const given = created();
    const processing = { ...record(given), status: 'PROCESSING' as const, updatedAt: later };
    spec
      .given(given)
      .when(at(later))
      .then([
        { type: 'TransferSubmitted', data: { transactionId, submittedAt: later, dueAt: later, transaction: processing } },
        { type: 'TransferCompleted', data: { transactionId, transaction: { ...processing, status: 'COMPLETED', settledAt: later } } },
      ]);
  });

  it.each([
    ['INSUFFICIENT_FUNDS', 'QUOTE_EXECUTION_FAILED'],
    ['ACCOUNT_CLOSED', 'QUOTE_EXECUTION_FAILED'],
    ['REJECTED_BY_BANK', 'COUNTERPARTY_POST_TX_FAILED'],
  ] as const)('fails a transfer whose rail answers %s at once, with failureReason %s and no settledAt', (outcome, failureReason) => {
    const events = advanceTransfer(at(later), stateOf(created(outcome)));
    expect(events.map((event) => event.type)).toEqual(['TransferSubmitted', 'TransferFailed']);
    const failed = events[1] as Extract<TransactionEvent, { type: 'TransferFailed' }>;
    expect(failed.data).toMatchObject({ railFailure: outcome, transaction: { status: 'FAILED', failureReason, updatedAt: later } });
    expect(failed.data.transaction).not.toHaveProperty('settledAt');
  });

  it('keeps a 005 transfer PROCESSING for pendingSeconds, then fails it once, and only once due', () => {
    const given = created('PENDING_THEN_FAILS');
    const submitted = advanceTransfer(at(createdAt), stateOf(given));
    expect(submitted).toEqual([
      {
        type: 'TransferSubmitted',
        data: {
          transactionId,
          submittedAt: createdAt,
          dueAt: '2026-03-01T10:00:30.000Z',
          transaction: { ...record(given), status: 'PROCESSING' },
        },
      },
    ]);
    spec
      .given([...given, ...submitted])
      .when(at('2026-03-01T10:00:29.999Z'))
      .thenNothingHappened();
    const failed = advanceTransfer(at('2026-03-01T10:00:30.000Z'), stateOf([...given, ...submitted]));
    expect(failed).toMatchObject([
      {
        type: 'TransferFailed',
        data: { railFailure: 'PENDING_THEN_FAILS', transaction: { status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' } },
      },
    ]);
    spec
      .given([...given, ...submitted, ...failed])
      .when(at('2026-03-01T11:00:00.000Z'))
      .thenNothingHappened();
  });

  it('leaves a finished transfer alone however often it is swept', () => {
    const given = created();
    const finished = [...given, ...advanceTransfer(at(later), stateOf(given))];
    spec.given(finished).when(at('2026-03-02T00:00:00.000Z')).thenNothingHappened();
  });

  it('fails a transfer whose hold was already released instead of completing it (nothing is left to send)', () => {
    const given = created();
    const released: AdvanceTransfer = { ...at(later), data: { transactionId, holdReleased: true } };
    expect(advanceTransfer(released, stateOf(given))).toMatchObject([
      {
        type: 'TransferFailed',
        data: { railFailure: 'HOLD_RELEASED', transaction: { status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' } },
      },
    ]);
    const finished = [...given, ...advanceTransfer(at(later), stateOf(given))];
    spec.given(finished).when(released).thenNothingHappened();
  });

  it('does nothing to a stream that is not a transfer', () => spec.given([]).when(at(later)).thenNothingHappened());

  it('fails a pull with the incoming reason QUOTE_EXECUTION_FAILED whatever the rail said', () => {
    expect(failureReasonOf('IN', 'REJECTED_BY_BANK')).toBe('QUOTE_EXECUTION_FAILED');
    expect(failureReasonOf('IN', 'PENDING_THEN_FAILS')).toBe('QUOTE_EXECUTION_FAILED');
  });
});

describe('ledgerStepOf', () => {
  const step = (outcome: RailOutcome, direction: 'OUT' | 'IN') => {
    const state = stateOf(created(outcome, direction));
    return ledgerStepOf(state, advanceTransfer(at(later), state));
  };

  it('settles the hold of a completed transfer-out and releases the hold of a failed one', () => {
    expect(step('SUCCEEDS', 'OUT')).toBe('settle-hold');
    expect(step('REJECTED_BY_BANK', 'OUT')).toBe('release-hold');
  });

  it('credits a completed transfer-in and moves nothing for a failed one', () => {
    expect(step('SUCCEEDS', 'IN')).toBe('credit');
    expect(step('ACCOUNT_CLOSED', 'IN')).toBe('none');
  });

  it('moves nothing while a transfer only waits', () => expect(step('PENDING_THEN_FAILS', 'OUT')).toBe('none'));
});
