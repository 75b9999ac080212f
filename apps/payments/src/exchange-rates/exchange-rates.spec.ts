// GET /exchange-rates priced by the quote formula with the platform's fees, its filters and
// refusals, and the five-minute cache on the injected clock.
import { type Clock, DomainError } from '@corridor/contracts';
import { createControllableClock } from '@corridor/testing';
import { parseDecimal } from '../pricing/quote-math';
import { defaultFeeSchedule, feeTermsFor, parseFeeSchedules } from '../pricing/fee-schedule';
import { listExchangeRates } from './list-exchange-rates';
import { ExchangeRateCache, type RateProvider, snapshotOf } from './rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';

const updatedAt = new Date('2026-03-01T10:00:00.000Z');
const snapshot = snapshotOf(sandboxUsdPrices, updatedAt);
const fees = (currency: string) => feeTermsFor({ default: defaultFeeSchedule, platforms: {} }, 'Platform:x', currency);

const refusal = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('Expected a refusal.');
};

describe('listExchangeRates', () => {
  it('prices USD to EUR for the default 10 000 cents, fees deducted first', () => {
    const [rate] = listExchangeRates(snapshot, fees, { sourceCurrency: 'USD', destinationCurrencies: ['EUR'] });
    // Fees 10 + ceil(10 000 × 0.3 %) = 40; 9 960 cents at 1 / 1.08 = 9 222.2… → 9 222.
    expect(rate).toEqual({
      sourceCurrency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 },
      sendingAmount: 10_000,
      minSendingAmount: 100,
      maxSendingAmount: 1_000_000_000,
      destinationCurrency: { code: 'EUR', name: 'Euro', symbol: '€', decimals: 2 },
      destinationPaymentRail: 'SEPA_INSTANT',
      receivingAmount: 9_222,
      exchangeRate: 1.08,
      fees: { fixed: 10, total: 40 },
      updatedAt: '2026-03-01T10:00:00.000Z',
    });
  });

  it('lists every bank-paid destination of a source, never the source itself', () => {
    const codes = listExchangeRates(snapshot, fees, { sourceCurrency: 'BTC' }).map((rate) => rate.destinationCurrency.code);
    expect(codes.sort()).toEqual(['AED', 'BRL', 'CAD', 'EUR', 'GBP', 'INR', 'MXN', 'NGN', 'PHP', 'USD']);
    expect(listExchangeRates(snapshot, fees, { sourceCurrency: 'USD' }).map((rate) => rate.destinationCurrency.code)).not.toContain('USD');
  });

  it('takes several destinations and a sending amount', () => {
    const rates = listExchangeRates(snapshot, fees, {
      sourceCurrency: 'EUR',
      destinationCurrencies: ['INR', 'GBP'],
      sendingAmount: '250000',
    });
    expect(rates.map((rate) => [rate.destinationCurrency.code, rate.sendingAmount])).toEqual([
      ['GBP', 250_000],
      ['INR', 250_000],
    ]);
  });

  it('shows zero received when the fees take the whole amount', () => {
    const [rate] = listExchangeRates(snapshot, fees, { sourceCurrency: 'USD', destinationCurrencies: ['MXN'], sendingAmount: '5' });
    expect([rate?.receivingAmount, rate?.fees]).toEqual([0, { fixed: 10, total: 11 }]);
  });

  it.each([
    ['sourceCurrency', { sourceCurrency: 'XXX' }],
    ['destinationCurrency', { destinationCurrencies: ['EUR', 'ZZZ'] }],
    ['sendingAmount', { sendingAmount: '-1' }],
    ['sendingAmount', { sendingAmount: '1.5' }],
  ])('refuses a bad %s with a 400 naming it', (field, filters) => {
    const error = refusal(() => listExchangeRates(snapshot, fees, filters));
    expect([error.status, error.details?.['field']]).toEqual([400, field]);
  });

  it('refuses a sending amount above the source currency’s maximum', () => {
    const error = refusal(() => listExchangeRates(snapshot, fees, { sourceCurrency: 'USD', sendingAmount: '1000000001' }));
    expect([error.code, error.details?.['field']]).toEqual(['AMOUNT_OUT_OF_RANGE', 'sendingAmount']);
    // Without a source, the currencies that cannot send that much are left out instead.
    const sources = new Set(listExchangeRates(snapshot, fees, { sendingAmount: '1000000001' }).map((rate) => rate.sourceCurrency.code));
    expect(sources.has('USD')).toBe(false);
    expect(sources.has('MXN')).toBe(true);
  });
});

describe('fee schedules', () => {
  it('uses a platform’s own schedule over the default', () => {
    const schedules = parseFeeSchedules(JSON.stringify({ platforms: { 'Platform:a': { fixedFees: { USD: 0 }, variableFeeBps: 0 } } }));
    expect(feeTermsFor(schedules, 'Platform:a', 'USD')).toEqual({ fixedFee: 0n, variableFeeRate: { numerator: 0n, denominator: 10_000n } });
    expect(feeTermsFor(schedules, 'Platform:b', 'USD')).toEqual({ fixedFee: 10n, variableFeeRate: parseDecimal('0.0030') });
  });

  it.each([
    '{',
    JSON.stringify({ default: { fixedFees: { USD: -1 }, variableFeeBps: 0 } }),
    JSON.stringify({ default: { fixedFees: {}, variableFeeBps: 10_000 } }),
    JSON.stringify({ default: { fixedFees: { XXX: 1 }, variableFeeBps: 1 } }),
  ])('refuses the bad schedule %s at startup', (json) => {
    expect(() => parseFeeSchedules(json)).toThrow(/PAYMENTS_FEE_SCHEDULE/);
  });
});

describe('ExchangeRateCache', () => {
  it('asks the provider again only once the snapshot is five minutes old', async () => {
    const clock = createControllableClock(updatedAt);
    let calls = 0;
    const provider: RateProvider = { midPricesInUsd: async () => ((calls += 1), sandboxUsdPrices) };
    const cache = new ExchangeRateCache(provider, { ttlSeconds: 300 }, clock as Clock);
    expect((await cache.current()).updatedAt).toEqual(updatedAt);
    clock.advance(299_999);
    await cache.current();
    expect(calls).toBe(1);
    clock.advance(1);
    expect((await cache.current()).updatedAt).toEqual(new Date('2026-03-01T10:05:00.000Z'));
    expect(calls).toBe(2);
  });
});
