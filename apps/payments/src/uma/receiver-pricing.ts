import { currencyOf } from '@corridor/contracts';
import type { RateSnapshot } from '../exchange-rates/rate-provider';
import { sandboxSendingLimits } from '../pricing/sandbox-rates';
import { exchangeRateOf } from '../pricing/quote-math';
import type { CurrencyPreferenceRecord } from './uma-directory';

/** The basis of a lookup's estimatedExchangeRate: a lookup does not know what the sender will pay in. */
export const ESTIMATE_BASE_CURRENCY = 'USD';

/**
 * Per receiving currency the snapshot prices: the mid rate from USD (USD per one unit of the
 * currency, the spec's basis; no fees, an estimate) and the least and most a payment may deliver
 * in its minor units (the sandbox limits, about 1 USD to 10 million USD). Currencies the snapshot
 * does not price are left out.
 */
export const currencyPreferencesOf = (snapshot: RateSnapshot, codes: readonly string[]): CurrencyPreferenceRecord[] =>
  codes
    .filter(
      (code) =>
        snapshot.currencies.includes(code) &&
        snapshot.currencies.includes(ESTIMATE_BASE_CURRENCY) &&
        sandboxSendingLimits[code] !== undefined,
    )
    .map((code) => {
      const limits = sandboxSendingLimits[code] ?? { min: 1n, max: 1n };
      const estimatedExchangeRate =
        code === ESTIMATE_BASE_CURRENCY
          ? '1'
          : exchangeRateOf({
              sendingMinorToMsat: snapshot.minorToMsat(ESTIMATE_BASE_CURRENCY),
              msatToReceivingMinor: snapshot.msatToMinor(code),
              sendingDecimals: currencyOf(ESTIMATE_BASE_CURRENCY).decimals,
              receivingDecimals: currencyOf(code).decimals,
            });
      return { code, estimatedExchangeRate, min: limits.min.toString(), max: limits.max.toString() };
    });
