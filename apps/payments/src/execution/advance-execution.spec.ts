// Every transition of an executed payment the reference documents, one rail outcome at a time:
// the webhook-visible sequence (status, failureReason, refund status) and the step left for the
// processor. Steps done twice, too early or out of order change nothing.
import { deciderSpec } from '@corridor/testing';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type AdvanceExecution, advanceExecution } from './advance-execution';
import { advance, at, execute, held, quoted, run, stateOf } from './execution.fixtures';
import type { RailOutcome } from '../transactions/payout-rail';

const spec = deciderSpec<Transaction, AdvanceExecution, TransactionEvent>({ decide: advanceExecution, ...transactionDecider });

/** What a client sees of each event: type, status, failureReason, refund status and reason. */
const visible = (events: TransactionEvent[]) =>
  events.map((event) => [
    event.type,
    event.data.transaction.status,
    event.data.transaction.failureReason ?? '-',
    event.data.transaction.refund ? `${event.data.transaction.refund.status}/${event.data.transaction.refund.reason}` : '-',
  ]);

const executed = (rail: RailOutcome) => run(quoted, execute(rail));
const atRail = (rail: RailOutcome) => run(executed(rail), advance('HOLD', held, at(2_000)));

describe('AdvanceExecution', () => {
  it('after the hold the payout is at the rail; an instant rail is due at once', () => {
    const events = atRail('SUCCESS');
    expect(visible(events.slice(-1))).toEqual([['PaymentFundsHeld', 'PROCESSING', '-', '-']]);
    expect(stateOf(events)).toMatchObject({ execution: { step: 'AWAIT_RAIL', dueAt: '2026-03-01T10:00:02.000Z' } });
  });

  it('fails the payment without a refund when the source cannot cover it (nothing was taken)', () =>
    spec
      .given(executed('SUCCESS'))
      .when(advance('HOLD', { kind: 'REFUSED', reason: 'INSUFFICIENT_FUNDS' }, at(2_000)))
      .then([
        expect.objectContaining({
          type: 'PaymentFailed',
          data: expect.objectContaining({
            transaction: expect.objectContaining({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' }),
            execution: expect.objectContaining({ step: 'DONE' }),
          }),
        }),
      ]));

  it('happy path: PROCESSING → COMPLETED with settledAt once the funds are settled, and nothing is left', () => {
    const events = run(atRail('SUCCESS'), advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(2_000)));
    expect(visible(events.slice(quoted.length))).toEqual([
      ['PaymentExecutionStarted', 'PROCESSING', '-', '-'],
      ['PaymentFundsHeld', 'PROCESSING', '-', '-'],
      ['PaymentCompleted', 'COMPLETED', '-', '-'],
    ]);
    expect(stateOf(events)).toMatchObject({ transaction: { settledAt: '2026-03-01T10:00:02.000Z' }, execution: { step: 'DONE' } });
  });

  it('003 long payment: still PROCESSING a moment before six minutes, COMPLETED at them', () => {
    const events = atRail('LONG_PAYMENT');
    expect(stateOf(events)).toMatchObject({ execution: { step: 'AWAIT_RAIL', dueAt: '2026-03-01T10:06:02.000Z' } });
    spec
      .given(events)
      .when(advance('AWAIT_RAIL', { kind: 'DUE' }, at(361_999)))
      .thenNothingHappened();
    spec
      .given(events)
      .when(advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(361_999)))
      .thenNothingHappened();
    expect(visible(advanceExecution(advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(362_000)), stateOf(events)))).toEqual([
      ['PaymentCompleted', 'COMPLETED', '-', '-'],
    ]);
  });

  it.each([
    ['002 execution failed', 'EXECUTION_FAILED', 'QUOTE_EXECUTION_FAILED', 'RELEASE_HOLD'],
    ['004 counterparty delivery failed', 'DELIVERY_FAILED', 'COUNTERPARTY_POST_TX_FAILED', 'RELEASE_HOLD'],
    ['UMA compliance failure', 'COMPLIANCE_FAILED', 'QUOTE_EXECUTION_FAILED', 'RELEASE_HOLD'],
  ] as const)('%s: FAILED → REFUND_PENDING → REFUND_COMPLETED, the hold released', (_name, rail, reason, method) => {
    const failing = run(atRail(rail), advance('AWAIT_RAIL', { kind: 'DUE' }, at(2_000)));
    expect(stateOf(failing)).toMatchObject({ execution: { step: 'REFUND', refundMethod: method } });
    const events = run(failing, advance('REFUND', { kind: 'REFUNDED' }, at(2_100)));
    expect(visible(events.slice(quoted.length + 2))).toEqual([
      ['PaymentFailed', 'FAILED', reason, '-'],
      ['PaymentRefundStarted', 'FAILED', reason, 'PENDING/TRANSACTION_FAILED'],
      ['PaymentRefundCompleted', 'FAILED', reason, 'COMPLETED/TRANSACTION_FAILED'],
    ]);
    expect(stateOf(events)).toMatchObject({
      transaction: {
        refund: {
          reference: expect.stringMatching(/^REFUND-/),
          initiatedAt: '2026-03-01T10:00:02.000Z',
          settledAt: '2026-03-01T10:00:02.100Z',
        },
      },
      execution: { step: 'DONE' },
    });
  });

  it('005 returned: COMPLETED, settled, then at the return FAILED → REFUND_PENDING → REFUND_COMPLETED, credited back', () => {
    const completed = run(atRail('RETURNED'), advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(2_000)));
    expect(stateOf(completed)).toMatchObject({
      transaction: { status: 'COMPLETED' },
      execution: { step: 'AWAIT_RETURN', dueAt: '2026-03-01T10:01:02.000Z' },
    });
    spec
      .given(completed)
      .when(advance('AWAIT_RETURN', { kind: 'DUE' }, at(61_999)))
      .thenNothingHappened();
    const events = run(completed, advance('AWAIT_RETURN', { kind: 'DUE' }, at(62_000)));
    expect(stateOf(events)).toMatchObject({ execution: { step: 'REFUND', refundMethod: 'CREDIT_BACK' } });
    expect(visible(run(events, advance('REFUND', { kind: 'REFUNDED' }, at(62_000))).slice(quoted.length + 2))).toEqual([
      ['PaymentCompleted', 'COMPLETED', '-', '-'],
      ['PaymentFailed', 'FAILED', 'COUNTERPARTY_POST_TX_FAILED', '-'],
      ['PaymentRefundStarted', 'FAILED', 'COUNTERPARTY_POST_TX_FAILED', 'PENDING/TRANSACTION_FAILED'],
      ['PaymentRefundCompleted', 'FAILED', 'COUNTERPARTY_POST_TX_FAILED', 'COMPLETED/TRANSACTION_FAILED'],
    ]);
  });

  it('006 user cancellation: PROCESSING → REFUND_PENDING → REFUND_COMPLETED → COMPLETED, the hold released', () => {
    const cancelling = run(atRail('CANCELLED'), advance('AWAIT_RAIL', { kind: 'DUE' }, at(2_000)));
    expect(stateOf(cancelling)).toMatchObject({ execution: { step: 'REFUND', refundMethod: 'RELEASE_HOLD' } });
    expect(visible(run(cancelling, advance('REFUND', { kind: 'REFUNDED' }, at(2_000))).slice(quoted.length + 2))).toEqual([
      ['PaymentRefundStarted', 'PROCESSING', '-', 'PENDING/USER_CANCELLATION'],
      ['PaymentRefundCompleted', 'PROCESSING', '-', 'COMPLETED/USER_CANCELLATION'],
      ['PaymentCompleted', 'COMPLETED', '-', 'COMPLETED/USER_CANCELLATION'],
    ]);
  });

  it('007 payout and refund failed: FAILED → REFUND_PENDING → REFUND_FAILED, the funds settled to the rail', () => {
    const failing = run(atRail('PAYOUT_AND_REFUND_FAILED'), advance('AWAIT_RAIL', { kind: 'DUE' }, at(2_000)));
    expect(stateOf(failing)).toMatchObject({ execution: { step: 'REFUND', refundMethod: 'SETTLE_TO_RAIL' } });
    expect(visible(run(failing, advance('REFUND', { kind: 'REFUNDED' }, at(2_000))).slice(quoted.length + 2))).toEqual([
      ['PaymentFailed', 'FAILED', 'QUOTE_EXECUTION_FAILED', '-'],
      ['PaymentRefundStarted', 'FAILED', 'QUOTE_EXECUTION_FAILED', 'PENDING/TRANSACTION_FAILED'],
      ['PaymentRefundFailed', 'FAILED', 'QUOTE_EXECUTION_FAILED', 'FAILED/TRANSACTION_FAILED'],
    ]);
  });

  it('records a step once: repeating it, or completing a step the payment is not at, changes nothing', () => {
    const events = atRail('SUCCESS');
    spec
      .given(events)
      .when(advance('HOLD', held, at(3_000)))
      .thenNothingHappened();
    spec
      .given(events)
      .when(advance('REFUND', { kind: 'REFUNDED' }, at(3_000)))
      .thenNothingHappened();
    spec
      .given(quoted)
      .when(advance('HOLD', held, at(3_000)))
      .thenNothingHappened();
  });

  it(
    'refuses a result that cannot end the step (a programming error, not a client’s): a completing payout must be settled, a failing ' +
      'one not',
    () => {
      spec
        .given(atRail('SUCCESS'))
        .when(advance('AWAIT_RAIL', { kind: 'DUE' }, at(3_000)))
        .thenThrows((error) => expect(error.code).toBe('INVALID_STATE_TRANSITION'));
      spec
        .given(atRail('EXECUTION_FAILED'))
        .when(advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(3_000)))
        .thenThrows((error) => expect(error.code).toBe('INVALID_STATE_TRANSITION'));
    },
  );

  it.each([
    ['HOLD', () => executed('SUCCESS'), { kind: 'DUE' }],
    ['AWAIT_RETURN', () => run(atRail('RETURNED'), advance('AWAIT_RAIL', { kind: 'SETTLED' }, at(2_000))), { kind: 'SETTLED' }],
    ['REFUND', () => run(atRail('CANCELLED'), advance('AWAIT_RAIL', { kind: 'DUE' }, at(2_000))), held],
  ] as const)('refuses a result that cannot end the %s step', (step, given, result) =>
    spec
      .given(given())
      .when(advance(step, result, at(120_000)))
      .thenThrows((error) => expect(error.code).toBe('INVALID_STATE_TRANSITION')),
  );
});
