// The payments service in-process on real PostgreSQL and NATS, with a clock the test moves: a
// quote created over NATS is readable at once with its PENDING transaction, and the expiry sweep
// ends it EXPIRED (failureReason QUOTE_EXPIRED) exactly at its expiresAt, once, and only for the
// platform that owns it. The sources and destinations here need no other service (real-time
// funding, a sandbox UMA address); lookups in the accounts and customers services are covered end
// to end in tests/payments.e2e.spec.ts.
import { type CreateQuoteData, newId, type QuoteWire, subjects, type TransactionWire } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createControllableClock, domainErrorOf, tokenContext, useServiceApp } from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { QuoteExpiryJob } from './quote-expiry.job';

const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const platformId = newId('Platform');
const strangerId = newId('Platform');

// A sweep interval far beyond the test: the test runs each sweep itself, at the clock's time.
const payments = useServiceApp({
  service: 'payments',
  defaults: loadConfig({}),
  overrides: { expirySweepSeconds: 86_400 },
  module: (config) => AppModule.register(config, clock),
});

const call = <Reply>(subject: string, data: unknown, platform = platformId): Promise<Reply> =>
  payments.client.request<Reply>(subject, data, { context: tokenContext(platform), timeoutMs: 30_000 });
const request: CreateQuoteData = {
  source: { sourceType: 'REALTIME_FUNDING', currency: 'USD' },
  destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.eur@sandbox.uma.money' },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: '10000',
};

describe('quotes over NATS', () => {
  it('creates a quote whose PENDING transaction is readable at once, and expires both at expiresAt, once', async () => {
    const quote = await call<QuoteWire>(subjects.payments.quote.create, request);
    expect([quote.status, quote.createdAt, quote.expiresAt]).toEqual(['PENDING', '2026-03-01T10:00:00.000Z', '2026-03-01T10:05:00.000Z']);
    expect((await call<TransactionWire>(subjects.payments.transaction.get, { transactionId: quote.transactionId })).status).toBe('PENDING');

    const sweeper = payments.app.get(QuoteExpiryJob);
    clock.advance(299_999);
    expect(await sweeper.sweep()).toBe(0);
    expect((await call<QuoteWire>(subjects.payments.quote.get, { quoteId: quote.id })).status).toBe('PENDING');

    clock.advance(1);
    expect(await sweeper.sweep()).toBe(1);
    expect((await call<QuoteWire>(subjects.payments.quote.get, { quoteId: quote.id })).status).toBe('EXPIRED');
    expect(await call<TransactionWire>(subjects.payments.transaction.get, { transactionId: quote.transactionId })).toMatchObject({
      status: 'EXPIRED',
      failureReason: 'QUOTE_EXPIRED',
      updatedAt: '2026-03-01T10:05:00.000Z',
    });
    clock.advance(60_000);
    expect(await sweeper.sweep()).toBe(0);
  });

  it("expires a quote in its create request's story, caused by the quote's last event (decision 0029)", async () => {
    const create = tokenContext(platformId);
    const quote = await payments.client.request<QuoteWire>(subjects.payments.quote.create, request, { context: create, timeoutMs: 30_000 });
    const store = payments.app.get(EventSourcing).store;
    const before = (await store.readStream(quote.transactionId)).events;
    const quoteLast = before[before.length - 1];
    expect(quoteLast?.metadata.correlationId).toBe(create.correlationId);

    clock.advance(300_000);
    await payments.app.get(QuoteExpiryJob).sweep();
    const expiry = (await store.readStream(quote.transactionId)).events.slice(before.length);
    expect(expiry.map((event) => event.type)).toEqual(['QuoteExpired']);
    expect(expiry[0]?.metadata).toMatchObject({ correlationId: create.correlationId, causationId: quoteLast?.eventId });
    expect(expiry[0]?.metadata.actor).toEqual({ kind: 'system', name: 'quote-expiry' });
  });

  it('keeps each platform’s quotes and transactions to itself', async () => {
    const quote = await call<QuoteWire>(subjects.payments.quote.create, request);
    expect((await domainErrorOf(call(subjects.payments.quote.get, { quoteId: quote.id }, strangerId))).code).toBe('QUOTE_NOT_FOUND');
    expect((await domainErrorOf(call(subjects.payments.transaction.get, { transactionId: quote.transactionId }, strangerId))).code).toBe(
      'TRANSACTION_NOT_FOUND',
    );
    const page = await call<{ data: TransactionWire[]; totalCount: number }>(
      subjects.payments.transaction.list,
      { limit: 100 },
      strangerId,
    );
    expect(page).toMatchObject({ data: [], totalCount: 0 });
  });
});
