import type { CreateQuoteData } from '@corridor/contracts';
import { parseDecimal } from '../pricing/quote-math';
import type { CreateQuote } from './create-quote';
import { snapshotOf } from '../exchange-rates/rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';

// Fixed ids and times for the quote deciders' tests, so expected events are exact.

export const platformId = 'Platform:0190f000-0000-7000-8000-000000000001';
export const quoteId = 'Quote:0190f000-0000-7000-8000-000000000002';
export const transactionId = 'Transaction:0190f000-0000-7000-8000-000000000003';
export const sourceAccountId = 'InternalAccount:0190f000-0000-7000-8000-000000000004';
export const destinationAccountId = 'ExternalAccount:0190f000-0000-7000-8000-000000000005';
export const customerId = 'Customer:0190f000-0000-7000-8000-000000000006';
export const now = new Date('2026-03-01T10:00:00.000Z');

const snapshot = snapshotOf(sandboxUsdPrices, now);

export const legsOf = (from: string, to: string, decimals: [number, number] = [2, 2]) => ({
  sendingMinorToMsat: snapshot.minorToMsat(from),
  msatToReceivingMinor: snapshot.msatToMinor(to),
  sendingDecimals: decimals[0],
  receivingDecimals: decimals[1],
});

export const accountQuoteRequest = (overrides: Partial<CreateQuoteData> = {}): CreateQuoteData => ({
  source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
  destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: '100000',
  ...overrides,
});

/** USD from a customer's internal account to a EUR external account, 0.10 USD + 0.3 % in fees. */
export const createQuoteCommand = (overrides: Partial<CreateQuote['data']> = {}, at: Date = now): CreateQuote => ({
  type: 'CreateQuote',
  data: {
    quoteId,
    transactionId,
    platformId,
    request: accountQuoteRequest(),
    source: { sourceType: 'ACCOUNT', accountId: sourceAccountId, currency: 'USD', customerId, platformCustomerId: 'crm-42' },
    destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId, currency: 'EUR' },
    legs: legsOf('USD', 'EUR'),
    fees: { fixedFee: 10n, variableFeeRate: parseDecimal('0.003') },
    sendingLimits: { min: 100n, max: 1_000_000_000n },
    ...overrides,
  },
  metadata: { now: at, ttlSeconds: 300 },
});
