// The execution process manager in-process on real PostgreSQL and NATS, with a clock the test
// moves: the sandbox rail's delays come from that clock, so a long payment (003's UMA twin,
// $pending.long…) stays PROCESSING until its time and completes at it, on the sweep that resumes
// payments from the payment_executions timer. Real-time funded payments to UMA addresses touch no
// ledger, so no other service is needed; the ledger paths run end to end in
// tests/payments-execution.e2e.spec.ts and tests/payments-recovery.e2e.spec.ts.
import { type CreateQuoteData, newId, type QuoteWire, type SandboxSendData, subjects, type TransactionWire } from '@corridor/contracts';
import { createControllableClock, domainErrorOf, tokenContext, useServiceApp } from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { EventSourcing } from '@corridor/event-store';
import { PaymentExecutionEntity } from './payment-execution.projection';
import { PaymentProcessor } from './payment-processor';

const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const platformId = newId('Platform');

// Sweeps far beyond the test: the test runs each sweep itself, at the clock's time.
const defaults = loadConfig({});
const payments = useServiceApp({
  service: 'payments',
  defaults,
  overrides: { execution: { ...defaults.execution, sweepMs: 86_400_000 } },
  module: (config) => AppModule.register(config, clock),
});

const call = <Reply>(subject: string, data: unknown, platform = platformId): Promise<Reply> =>
  payments.client.request<Reply>(subject, data, { context: tokenContext(platform), timeoutMs: 30_000 });
const quoteTo = (umaAddress: string): Promise<QuoteWire> =>
  call<QuoteWire>(subjects.payments.quote.create, {
    source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
    destination: { destinationType: 'UMA_ADDRESS', umaAddress },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: '10000',
  } satisfies CreateQuoteData);
const send = (quoteId: string, currencyAmount?: string) =>
  call<TransactionWire>(subjects.payments.sandbox.send, {
    quoteId,
    currencyCode: 'USD',
    ...(currencyAmount ? { currencyAmount } : {}),
  } satisfies SandboxSendData);

/** The processor records its steps without waiting for read models: read until the transaction shows the expected state (bounded). */
const transactionOnceIt = async (transactionId: string, done: (transaction: TransactionWire) => boolean): Promise<TransactionWire> => {
  for (let attempt = 0; ; attempt += 1) {
    const transaction = await call<TransactionWire>(subjects.payments.transaction.get, { transactionId });
    if (done(transaction) || attempt >= 100) return transaction;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('execution with the rail on the service clock', () => {
  it('keeps a long payment PROCESSING until six minutes pass, and completes it on the sweep at that time', async () => {
    const quote = await quoteTo('$pending.long.eur@sandbox.uma.money');
    expect((await send(quote.id)).status).toBe('PROCESSING');
    const processor = payments.app.get(PaymentProcessor);

    clock.advance(359_999);
    expect(await processor.sweep()).toBe(0);
    expect((await call<TransactionWire>(subjects.payments.transaction.get, { transactionId: quote.transactionId })).status).toBe(
      'PROCESSING',
    );

    clock.advance(1);
    expect(await processor.sweep()).toBe(1);
    const completed = await transactionOnceIt(quote.transactionId, (transaction) => transaction.status === 'COMPLETED');
    expect(completed).toMatchObject({ status: 'COMPLETED', settledAt: '2026-03-01T10:06:00.000Z' });
    expect((await call<QuoteWire>(subjects.payments.quote.get, { quoteId: quote.id })).status).toBe('COMPLETED');
    // Done: once the timer row shows it, later sweeps find nothing.
    const eventSourcing = payments.app.get(EventSourcing);
    for (
      let attempt = 0;
      attempt < 100 && (await eventSourcing.em.findOne(PaymentExecutionEntity, { transactionId: quote.transactionId }))?.step !== 'DONE';
      attempt += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    clock.advance(60_000);
    expect(await processor.sweep()).toBe(0);
  });

  it('fails a compliance-failed UMA payment at once and completes its refund', async () => {
    const quote = await quoteTo('$fail.compliance.eur@sandbox.uma.money');
    await send(quote.id);
    const failed = await transactionOnceIt(quote.transactionId, (transaction) => transaction.refund?.status === 'COMPLETED');
    expect(failed).toMatchObject({
      status: 'FAILED',
      failureReason: 'QUOTE_EXECUTION_FAILED',
      refund: { status: 'COMPLETED', reason: 'TRANSACTION_FAILED' },
    });
  });

  it('runs a payment’s commands (quote, execute, the drive’s steps) on what this process remembers: its stream is never read', async () => {
    const reads = jest.spyOn(payments.app.get(EventSourcing).store, 'readStream');
    try {
      const quote = await quoteTo('$success.eur@sandbox.uma.money');
      expect((await send(quote.id)).status).toBe('PROCESSING');
      const completed = await transactionOnceIt(quote.transactionId, (transaction) => transaction.status === 'COMPLETED');
      expect(completed.status).toBe('COMPLETED');
      expect(reads.mock.calls.filter(([streamId]) => streamId === quote.transactionId)).toEqual([]);
    } finally {
      reads.mockRestore();
    }
  });

  it('refuses a second send (409) and another platform’s quote (404)', async () => {
    const quote = await quoteTo('$success.eur@sandbox.uma.money');
    await send(quote.id);
    expect((await domainErrorOf(send(quote.id))).code).toBe('CONFLICT');
    const other = await quoteTo('$success.eur@sandbox.uma.money');
    expect(
      (await domainErrorOf(call(subjects.payments.sandbox.send, { quoteId: other.id, currencyCode: 'USD' }, newId('Platform')))).code,
    ).toBe('QUOTE_NOT_FOUND');
  });
});
