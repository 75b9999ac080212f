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

export const parseAmount = (json: AmountJson): Amount => ({
  value: BigInt(json.value),
  currency: json.currency,
});

export const serializeAmount = (amount: Amount): AmountJson => ({
  value: amount.value.toString(),
  currency: amount.currency,
});

/** The HTTP form. Amounts beyond 2^53 - 1 cannot be represented exactly as a JSON number. */
export const toWireAmount = (amount: Amount): CurrencyAmountWire => {
  if (amount.value > BigInt(Number.MAX_SAFE_INTEGER) || amount.value < -BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`Amount ${amount.value} exceeds the safe integer range.`);
  }
  const currency = currencies[amount.currency];
  if (!currency) throw new RangeError(`Unknown currency ${amount.currency}.`);
  return { amount: Number(amount.value), currency };
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
