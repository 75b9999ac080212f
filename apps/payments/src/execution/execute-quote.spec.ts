// The execute rules: a PENDING quote executes once, before its expiry, by the way its source pays.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { expireQuote } from '../quotes/expire-quote';
import { quoteId, transactionId } from '../quotes/quote.fixtures';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type ExecuteQuote, executeQuote } from './execute-quote';
import { at, execute, quoted, realtimeQuoted, run, stateOf } from './execution.fixtures';

const spec = deciderSpec<Transaction, ExecuteQuote, TransactionEvent>({ decide: executeQuote, ...transactionDecider });
const [created] = quoted as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];

const refusedWith = (code: string, status: number) => (error: DomainError) => {
  expect(error).toBeInstanceOf(DomainError);
  expect([error.code, error.status]).toEqual([code, status]);
};

describe('ExecuteQuote', () => {
  it('starts the payment: PENDING → PROCESSING, the hold on the source due at once, the rail outcome recorded', () =>
    spec
      .given(quoted)
      .when(execute('RETURNED'))
      .then([
        {
          type: 'PaymentExecutionStarted',
          data: {
            transactionId,
            quoteId,
            at: '2026-03-01T10:00:01.000Z',
            transaction: { ...created.data.transaction, status: 'PROCESSING', updatedAt: '2026-03-01T10:00:01.000Z' },
            execution: { step: 'HOLD', dueAt: '2026-03-01T10:00:01.000Z', funding: 'ACCOUNT', rail: 'RETURNED' },
          },
        },
      ]));

  it('refuses a second execute with 409 CONFLICT: a retry never starts a second payment', () =>
    spec.given(run(quoted, execute())).when(execute()).thenThrows(refusedWith('CONFLICT', 409)));

  it('refuses a quote whose payment already ended (COMPLETED, FAILED)', () => {
    const failed = run(quoted, execute(), {
      type: 'AdvanceExecution',
      data: { transactionId, step: 'HOLD', result: { kind: 'REFUSED', reason: 'INSUFFICIENT_FUNDS' } },
      metadata: { now: at(2_000), delays: execute().metadata.delays },
    });
    expect(stateOf(failed)).toMatchObject({ transaction: { status: 'FAILED' } });
    spec.given(failed).when(execute()).thenThrows(refusedWith('CONFLICT', 409));
  });

  it('refuses an EXPIRED quote with 409 CONFLICT', () => {
    const expired = [
      ...quoted,
      ...expireQuote({ type: 'ExpireQuote', data: { transactionId }, metadata: { now: at(300_000) } }, stateOf(quoted)),
    ];
    spec
      .given(expired)
      .when(execute('SUCCESS', at(301_000)))
      .thenThrows((error) => {
        refusedWith('CONFLICT', 409)(error);
        expect(error.message).toMatch(/expired/);
      });
  });

  it('refuses a quote at its expiresAt even before the sweep expired it, and executes it a millisecond before', () => {
    spec
      .given(quoted)
      .when(execute('SUCCESS', at(300_000)))
      .thenThrows(refusedWith('CONFLICT', 409));
    expect(executeQuote(execute('SUCCESS', at(299_999)), stateOf(quoted)).map((event) => event.type)).toEqual(['PaymentExecutionStarted']);
  });

  it("records the executing agent as the transaction's agentId (decision 0016)", () => {
    const command = execute('SUCCESS');
    const [started] = executeQuote(
      { ...command, data: { ...command.data, agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000001' } },
      stateOf(quoted),
    );
    expect((started?.data as { transaction: { agentId?: string } }).transaction.agentId).toBe('Agent:019542f5-b3e7-1d02-0000-000000000001');
    expect((executeQuote(command, stateOf(quoted))[0]?.data as { transaction: object }).transaction).not.toHaveProperty('agentId');
  });

  it('refuses an unknown transaction with 404', () => spec.given([]).when(execute()).thenThrows(refusedWith('TRANSACTION_NOT_FOUND', 404)));

  it('refuses to execute a REALTIME_FUNDING quote on request (it executes when its funds arrive)', () =>
    spec.given(realtimeQuoted).when(execute()).thenThrows(refusedWith('INVALID_INPUT', 400)));

  it('refuses real-time funds for a quote paid from an account', () =>
    spec
      .given(quoted)
      .when(execute('SUCCESS', at(1_000), { funding: 'REALTIME', fundedAmount: '100000' }))
      .thenThrows(refusedWith('INVALID_INPUT', 400)));

  it('starts a REALTIME_FUNDING payment at the rail when the quoted amount arrives (nothing to hold)', () => {
    const [event] = executeQuote(
      execute('LONG_PAYMENT', at(1_000), { funding: 'REALTIME', fundedAmount: '100000' }),
      stateOf(realtimeQuoted),
    );
    expect(event).toMatchObject({
      type: 'PaymentExecutionStarted',
      data: {
        transaction: { status: 'PROCESSING' },
        execution: { step: 'AWAIT_RAIL', funding: 'REALTIME', dueAt: '2026-03-01T10:06:01.000Z' },
      },
    });
  });

  it('fails a REALTIME_FUNDING payment whose funds do not match the quote with FUNDING_AMOUNT_MISMATCH, and refunds them', () => {
    const events = executeQuote(execute('SUCCESS', at(1_000), { funding: 'REALTIME', fundedAmount: '99999' }), stateOf(realtimeQuoted));
    expect(
      events.map((event) => [
        event.type,
        event.data.transaction.status,
        event.data.transaction.failureReason,
        event.data.transaction.refund?.status,
      ]),
    ).toEqual([
      ['PaymentExecutionStarted', 'PROCESSING', undefined, undefined],
      ['PaymentFailed', 'FAILED', 'FUNDING_AMOUNT_MISMATCH', undefined],
      ['PaymentRefundStarted', 'FAILED', 'FUNDING_AMOUNT_MISMATCH', 'PENDING'],
    ]);
    expect(stateOf([...realtimeQuoted, ...events])).toMatchObject({ execution: { step: 'REFUND', refundMethod: 'OUTSIDE_LEDGER' } });
  });
});
