import {
  DomainError,
  type ExchangeRateWire,
  currencyOf,
  decimalToNumber,
  invalidInput,
  isSupportedCurrency,
  MINOR_UNITS_MAX,
  minorUnitsToNumber,
  parseMinorUnits,
} from '@corridor/contracts';
import { exchangeRateOf, priceQuote, variableFeeOf } from '../pricing/quote-math';
import type { FeeTerms } from '../pricing/fee-schedule';
import type { RateSnapshot } from './rate-provider';
import { sandboxPayoutRails, sandboxSendingLimits } from '../pricing/sandbox-rates';

// GET /exchange-rates: every corridor of the snapshot priced for one sending amount with the same
// formula as a quote (quote-math), fees of the asking platform included. Pure; the controller
// brings the snapshot and the platform's fee terms.

/** The reference's default sending amount when none is given. */
export const DEFAULT_SENDING_AMOUNT = 10_000n;

export type ExchangeRateFilters = { sourceCurrency?: string; destinationCurrencies?: string[]; sendingAmount?: string };

const requireCurrency = (code: string, field: string): string => {
  if (!isSupportedCurrency(code))
    throw invalidInput(`${field} ${JSON.stringify(code)} is not a currency Corridor exchanges; use a code such as USD, EUR or BTC.`, {
      field,
    });
  return code;
};

const parseSendingAmount = (text: string | undefined): bigint => {
  if (text === undefined) return DEFAULT_SENDING_AMOUNT;
  return parseMinorUnits(text, { field: 'sendingAmount', min: 0n, max: MINOR_UNITS_MAX });
};

/**
 * With sourceCurrency given, a sendingAmount above its maximum is refused (400 AMOUNT_OUT_OF_RANGE);
 * without it, source currencies whose maximum is below the amount are left out of the list.
 */
export const listExchangeRates = (
  snapshot: RateSnapshot,
  feesOf: (currency: string) => FeeTerms,
  filters: ExchangeRateFilters,
): ExchangeRateWire[] => {
  const source = filters.sourceCurrency === undefined ? undefined : requireCurrency(filters.sourceCurrency, 'sourceCurrency');
  const destinations = filters.destinationCurrencies?.map((code) => requireCurrency(code, 'destinationCurrency'));
  const sendingAmount = parseSendingAmount(filters.sendingAmount);
  if (source !== undefined) {
    const limits = sandboxSendingLimits[source];
    if (limits && sendingAmount > limits.max) {
      throw new DomainError(
        'AMOUNT_OUT_OF_RANGE',
        'validation',
        `sendingAmount ${sendingAmount} is above the most ${source} a payment can send, ${limits.max} minor units.`,
        {
          field: 'sendingAmount',
          maxSendingAmount: Number(limits.max),
        },
      );
    }
  }
  const sources = snapshot.currencies.filter(
    (code) => (source === undefined || code === source) && sendingAmount <= (sandboxSendingLimits[code]?.max ?? -1n),
  );
  const targets = snapshot.currencies.filter(
    (code) => sandboxPayoutRails[code] !== undefined && (destinations === undefined || destinations.includes(code)),
  );
  return sources.flatMap((from) =>
    targets
      .filter((to) => to !== from)
      .map((to) => {
        const sending = currencyOf(from);
        const receiving = currencyOf(to);
        const fees = feesOf(from);
        const legs = {
          sendingDecimals: sending.decimals,
          receivingDecimals: receiving.decimals,
          sendingMinorToMsat: snapshot.minorToMsat(from),
          msatToReceivingMinor: snapshot.msatToMinor(to),
        };
        const priced = priceQuote({ lockedCurrencySide: 'SENDING', lockedCurrencyAmount: sendingAmount, ...legs, ...fees });
        // An amount the fees take whole (or zero) still shows the rate and the fees; it just delivers nothing.
        const receivingAmount = priced.kind === 'Priced' ? priced.totalReceivingAmount : 0n;
        const totalFees = fees.fixedFee + variableFeeOf(sendingAmount, fees.variableFeeRate);
        const limits = sandboxSendingLimits[from] ?? { min: 0n, max: 0n };
        return {
          sourceCurrency: sending,
          sendingAmount: minorUnitsToNumber(sendingAmount.toString()),
          minSendingAmount: minorUnitsToNumber(limits.min.toString()),
          maxSendingAmount: minorUnitsToNumber(limits.max.toString()),
          destinationCurrency: receiving,
          destinationPaymentRail: sandboxPayoutRails[to] ?? 'BANK_TRANSFER',
          receivingAmount: minorUnitsToNumber(receivingAmount.toString()),
          exchangeRate: decimalToNumber(exchangeRateOf(legs)),
          fees: { fixed: minorUnitsToNumber(fees.fixedFee.toString()), total: minorUnitsToNumber(totalFees.toString()) },
          updatedAt: snapshot.updatedAt.toISOString(),
        };
      }),
  );
};
