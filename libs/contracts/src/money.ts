import { invalidInput } from './errors';

// Money is bigint minor units in memory, a decimal string in stored events, and a JSON integer
// on the HTTP wire. Convert only through these functions.

export type Currency = { code: string; name: string; symbol: string; decimals: number };

export type Amount = { value: bigint; currency: string };
export type AmountJson = { value: string; currency: string };
export type CurrencyAmountWire = { amount: number; currency: Currency };

export const currencies: Readonly<Record<string, Currency>> = Object.fromEntries(
  (
    [
      ['USD', 'United States Dollar', '$', 2],
      ['EUR', 'Euro', '€', 2],
      ['GBP', 'Pound Sterling', '£', 2],
      ['MXN', 'Mexican Peso', '$', 2],
      ['BRL', 'Brazilian Real', 'R$', 2],
      ['INR', 'Indian Rupee', '₹', 2],
      ['NGN', 'Nigerian Naira', '₦', 2],
      ['PHP', 'Philippine Peso', '₱', 2],
      ['CAD', 'Canadian Dollar', '$', 2],
      ['AED', 'UAE Dirham', 'د.إ', 2],
      ['BTC', 'Bitcoin', '₿', 8],
      ['USDC', 'USD Coin', 'USDC', 6],
      ['USDB', 'USDB', 'USDB', 6],
    ] as const
  ).map(([code, name, symbol, decimals]) => [code, { code, name, symbol, decimals }]),
);

export const isSupportedCurrency = (code: unknown): code is string =>
  typeof code === 'string' && Object.prototype.hasOwnProperty.call(currencies, code);

/** The stored form of an amount (an event's or a row's decimal string) back into memory. */
export const parseAmount = (json: AmountJson): Amount => ({
  value: BigInt(json.value),
  currency: json.currency,
});

/** The stored form: a decimal string, which JSON carries exactly at any size. */
export const serializeAmount = (amount: Amount): AmountJson => ({
  value: amount.value.toString(),
  currency: amount.currency,
});

/**
 * The bounds of one amount a request or a message carries. `type` is the JSON type the route takes:
 * a decimal string (what services send each other, and what every stored event holds) unless the
 * route takes the reference's JSON integer as it arrived.
 */
export type MinorUnitsRule = { field: string; min: bigint; max: bigint; type?: 'string' | 'number' };

/**
 * The largest amount 16 digits spell. A route whose limit belongs to a business rule (answered
 * AMOUNT_OUT_OF_RANGE with the limit in the details) parses up to this and leaves the rest to the rule.
 */
export const MINOR_UNITS_MAX = 9_999_999_999_999_999n;

const SAFE_INTEGER_MAX = BigInt(Number.MAX_SAFE_INTEGER);
/** Digits a request may spell: 16 (leading zeros included, as every route took), or what a wider bound needs. */
const digitsAllowed = (rule: MinorUnitsRule): number => {
  const widest = rule.max > -rule.min ? rule.max : -rule.min;
  return Math.max(16, widest.toString().length);
};

/**
 * The one way an amount enters from a request or a message: plain ASCII digits (a leading minus only
 * where `min` is below 0), no sign, point, exponent or whitespace, then the bounds. Anything else is
 * the reference's 400 INVALID_INPUT naming the field and the bounds.
 */
export const parseMinorUnits = (value: unknown, rule: MinorUnitsRule): bigint => {
  const { field, min, max, type = 'string' } = rule;
  if (min > max || (type === 'number' && (min < -SAFE_INTEGER_MAX || max > SAFE_INTEGER_MAX))) {
    throw new RangeError(`${field}: the bounds ${min}..${max} cannot be met by a ${type}.`);
  }
  const refuse = () =>
    invalidInput(
      `${field} must be a whole number of minor units from ${min} to ${max}${type === 'string' ? ', as a decimal string' : ''}.`,
      {
        field,
      },
    );
  let amount: bigint;
  if (type === 'number') {
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw refuse();
    amount = BigInt(value);
  } else {
    const pattern = min < 0n ? /^-?[0-9]+$/ : /^[0-9]+$/;
    if (typeof value !== 'string' || !pattern.test(value) || value.replace('-', '').length > digitsAllowed(rule)) throw refuse();
    amount = BigInt(value);
  }
  if (amount < min || amount > max) throw refuse();
  return amount;
};

/** A JSON integer for the HTTP wire; amounts beyond 2^53 - 1 cannot be one exactly. */
export const toWireMinorUnits = (value: bigint): number => {
  if (value > SAFE_INTEGER_MAX || value < -SAFE_INTEGER_MAX) throw new RangeError(`Amount ${value} exceeds the safe integer range.`);
  return Number(value);
};

/** The HTTP form. Amounts beyond 2^53 - 1 cannot be represented exactly as a JSON number. */
export const toWireAmount = (amount: Amount): CurrencyAmountWire => {
  const wire = toWireMinorUnits(amount.value);
  const currency = currencies[amount.currency];
  if (!currency) throw new RangeError(`Unknown currency ${amount.currency}.`);
  return { amount: wire, currency };
};

export const addAmounts = (left: Amount, right: Amount): Amount => {
  if (left.currency !== right.currency) {
    throw new RangeError(`Cannot add ${left.currency} to ${right.currency}.`);
  }
  return { value: left.value + right.value, currency: left.currency };
};

export const subtractAmounts = (left: Amount, right: Amount): Amount => {
  if (left.currency !== right.currency) {
    throw new RangeError(`Cannot subtract ${right.currency} from ${left.currency}.`);
  }
  return { value: left.value - right.value, currency: left.currency };
};
