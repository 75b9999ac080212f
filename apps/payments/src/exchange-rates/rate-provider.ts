import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, currencies } from '@corridor/contracts';
import { invert, multiply, parseDecimal, type Ratio } from '../pricing/quote-math';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';

// The rate-provider port and the cache in front of it. Rates change slowly next to payments, so
// a snapshot is kept for a fixed time (about five minutes, as the reference promises) on the
// injected clock, and every quote priced in that window uses the same snapshot.

/** Mid prices in US dollars per one major unit, as exact decimal strings. */
export type RateProvider = { midPricesInUsd(): Promise<Record<string, string>> };
export const RATE_PROVIDER = 'RATE_PROVIDER';
export const RATE_CACHE_OPTIONS = 'RATE_CACHE_OPTIONS';

export const sandboxRateProvider: RateProvider = { midPricesInUsd: async () => sandboxUsdPrices };

const MSAT_PER_BTC = 100_000_000_000n;

/** One set of mid prices, with the two legs through mSATs that quote-math prices with. */
export type RateSnapshot = {
  updatedAt: Date;
  currencies: readonly string[];
  /** mSATs per minor unit of `code`. */
  minorToMsat(code: string): Ratio;
  /** Minor units of `code` per mSAT. */
  msatToMinor(code: string): Ratio;
};

export const snapshotOf = (prices: Record<string, string>, updatedAt: Date): RateSnapshot => {
  const usd = new Map(Object.entries(prices).map(([code, price]) => [code, parseDecimal(price)]));
  const btc = usd.get('BTC');
  if (!btc || btc.numerator === 0n) throw new RangeError('The rate provider must price BTC: legs go through millisatoshis.');
  const known = [...usd.keys()].filter((code) => currencies[code] !== undefined && (usd.get(code)?.numerator ?? 0n) > 0n);
  const minorToMsat = (code: string): Ratio => {
    const price = usd.get(code);
    const currency = currencies[code];
    if (!price || !currency) throw new RangeError(`No rate for ${code}.`);
    // USD per minor unit ÷ USD per mSAT.
    return multiply(
      { numerator: price.numerator, denominator: price.denominator * 10n ** BigInt(currency.decimals) },
      { numerator: MSAT_PER_BTC * btc.denominator, denominator: btc.numerator },
    );
  };
  return { updatedAt, currencies: known, minorToMsat, msatToMinor: (code) => invert(minorToMsat(code)) };
};

@Injectable()
export class ExchangeRateCache {
  private cached?: Promise<RateSnapshot>;
  private fetchedAtMs = Number.NEGATIVE_INFINITY;

  constructor(
    @Inject(RATE_PROVIDER) private readonly provider: RateProvider,
    @Inject(RATE_CACHE_OPTIONS) private readonly options: { ttlSeconds: number },
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The current snapshot; refreshed from the provider once it is older than the cache's lifetime. */
  current(): Promise<RateSnapshot> {
    const now = this.clock.now();
    if (!this.cached || now.getTime() - this.fetchedAtMs >= this.options.ttlSeconds * 1000) {
      this.fetchedAtMs = now.getTime();
      const fetching = this.provider.midPricesInUsd().then((prices) => snapshotOf(prices, now));
      // A failed fetch is not cached: the next call asks the provider again.
      fetching.catch(() => {
        if (this.cached === fetching) this.cached = undefined;
      });
      this.cached = fetching;
    }
    return this.cached;
  }
}
