// The one formula behind every quote and every exchange-rate preview. Pure and exact: amounts are
// bigint minor units, rates are ratios of bigints, and a number never enters the arithmetic (the
// decimal strings it returns for rates are for display on the wire only).
//
// How a payment is priced
// -----------------------
// Notation: S = totalSendingAmount, F = fixed fee, r = variable fee rate, V = variable fee,
// N = converted (net) amount, R = totalReceivingAmount, all in minor units except r; M = receiving
// minor units per sending minor unit.
//
//   V = ceil(S × r)        the variable fee is charged on the whole sending amount
//   fees = F + V           feesIncluded, in the sending currency ("fees are deducted from the
//                          sending amount", as the reference documents)
//   N = S − fees           what is converted
//   R = floor(N × M)       what the receiver gets
//
// M is the product of two legs through millisatoshis, the unit the reference's rate details are
// written in: serviceApiMultiplier (sending minor unit → mSAT, net of the variable fee, i.e.
// legToMsat × (1 − r)) and counterpartyMultiplier (mSAT → receiving minor unit). The sandbox
// counterparty charges no fee of its own, so counterpartyFixedFee is always 0 here.
//
// Lock side
//   SENDING   S is the locked amount; R follows from the formulas above.
//   RECEIVING R is the locked amount; S is the smallest sending amount whose R would be at least
//             the locked amount: N = ceil(R / M), then the least S with S − F − ceil(S × r) ≥ N.
//
// Rounding never creates money: everything the house keeps is rounded up (fees) and everything it
// gives is rounded down (the receiving amount), so R ≤ N × M always holds and the residue of each
// rounding stays with the house's FX account. With the receiving side locked the sender pays the
// least whole amount that covers R, and the receiver gets exactly R.
//
// exchangeRate is the mid rate the converted amount is exchanged at, as the spec defines it:
// sending-currency units per one receiving-currency unit (major units, e.g. 1.08 USD per EUR).

import { trimTrailing } from '@corridor/contracts';

export type Ratio = { numerator: bigint; denominator: bigint };

export type QuoteMathInput = {
  lockedCurrencySide: 'SENDING' | 'RECEIVING';
  lockedCurrencyAmount: bigint;
  sendingDecimals: number;
  receivingDecimals: number;
  /** mSATs per sending minor unit at the mid rate. */
  sendingMinorToMsat: Ratio;
  /** Receiving minor units per mSAT at the mid rate. */
  msatToReceivingMinor: Ratio;
  /** Minor units of the sending currency. */
  fixedFee: bigint;
  /** A fraction in [0, 1), e.g. 3/1000 for 0.3 %. */
  variableFeeRate: Ratio;
};

export type PricedQuote = {
  kind: 'Priced';
  totalSendingAmount: bigint;
  totalReceivingAmount: bigint;
  convertedAmount: bigint;
  fixedFee: bigint;
  variableFeeAmount: bigint;
  feesIncluded: bigint;
  /** Decimal strings, display only. */
  exchangeRate: string;
  serviceApiMultiplier: string;
  counterpartyMultiplier: string;
  serviceApiVariableFeeRate: string;
};

export type RefusedQuote =
  /** The locked amount is zero or negative. */
  | { kind: 'Refused'; reason: 'NOT_POSITIVE' }
  /** SENDING lock: the fees take the whole amount (or more). */
  | { kind: 'Refused'; reason: 'FEES_EXCEED_AMOUNT'; feesIncluded: bigint }
  /** SENDING lock: what is left after fees converts to less than one receiving minor unit. */
  | { kind: 'Refused'; reason: 'RECEIVES_NOTHING' };

export type QuoteMathResult = PricedQuote | RefusedQuote;

const ratio = (numerator: bigint, denominator: bigint): Ratio => {
  if (denominator === 0n) throw new RangeError('A ratio cannot have a zero denominator.');
  return denominator < 0n ? { numerator: -numerator, denominator: -denominator } : { numerator, denominator };
};

export const multiply = (left: Ratio, right: Ratio): Ratio => ratio(left.numerator * right.numerator, left.denominator * right.denominator);
export const invert = (value: Ratio): Ratio => ratio(value.denominator, value.numerator);

/** Floor and ceiling of numerator / denominator for non-negative values (the only ones priced here). */
const floorDiv = (numerator: bigint, denominator: bigint): bigint => numerator / denominator;
const ceilDiv = (numerator: bigint, denominator: bigint): bigint => (numerator + denominator - 1n) / denominator;

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent);

/** "1.08" → 108/100. Only plain decimals (no sign, no exponent): rate tables are written that way. */
export const parseDecimal = (text: string): Ratio => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new RangeError(`${JSON.stringify(text)} is not a plain decimal.`);
  const fraction = match[2] ?? '';
  return ratio(BigInt(`${match[1]}${fraction}`), pow10(fraction.length));
};

/**
 * A positive ratio as a decimal string with `significantDigits` significant digits, rounded half
 * up, trailing zeros dropped. Display only: the JSON number the wire carries is made from it.
 */
export const toDecimalString = (value: Ratio, significantDigits = 12): string => {
  const { numerator, denominator } = value;
  if (numerator <= 0n) return '0';
  const integerPart = numerator / denominator;
  let scale: number;
  if (integerPart > 0n) {
    scale = Math.max(0, significantDigits - integerPart.toString().length);
  } else {
    let leadingZeros = 0;
    for (let scaled = numerator * 10n; scaled < denominator; scaled *= 10n) leadingZeros += 1;
    scale = leadingZeros + significantDigits;
  }
  const scaled = (numerator * pow10(scale) * 2n + denominator) / (2n * denominator);
  const digits = scaled.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = trimTrailing(digits.slice(digits.length - scale), '0');
  return fraction ? `${whole}.${fraction}` : whole;
};

/** ceil(S × r): the variable fee on a sending amount. */
export const variableFeeOf = (sendingAmount: bigint, rate: Ratio): bigint => ceilDiv(sendingAmount * rate.numerator, rate.denominator);

/** The least S with S − fixedFee − ceil(S × r) ≥ converted; see the header for why it is exact. */
const leastSendingAmountFor = (converted: bigint, fixedFee: bigint, rate: Ratio): bigint =>
  // S − ceil(S r) ≥ S (1 − r) − (1 − 1/denominator) > S (1 − r) − 1, and it only grows with S, so the
  // ceiling of (converted + F) / (1 − r) is the least S that reaches converted + F.
  ceilDiv((converted + fixedFee) * rate.denominator, rate.denominator - rate.numerator);

const assertInput = (input: QuoteMathInput): void => {
  const { variableFeeRate: rate, sendingMinorToMsat, msatToReceivingMinor, fixedFee } = input;
  // Programmer or configuration errors, not client input: the fee schedule and rate table are checked at startup.
  if (rate.numerator < 0n || rate.numerator >= rate.denominator) throw new RangeError('The variable fee rate must be in [0, 1).');
  if (fixedFee < 0n) throw new RangeError('The fixed fee cannot be negative.');
  if (sendingMinorToMsat.numerator <= 0n || msatToReceivingMinor.numerator <= 0n) throw new RangeError('Rates must be positive.');
};

/** Sending major units per receiving major unit = 10^receivingDecimals / (M × 10^sendingDecimals), as a decimal. */
export const exchangeRateOf = (
  input: Pick<QuoteMathInput, 'sendingMinorToMsat' | 'msatToReceivingMinor' | 'sendingDecimals' | 'receivingDecimals'>,
): string => {
  const perSendingMinor = multiply(input.sendingMinorToMsat, input.msatToReceivingMinor);
  return toDecimalString(
    ratio(perSendingMinor.denominator * pow10(input.receivingDecimals), perSendingMinor.numerator * pow10(input.sendingDecimals)),
  );
};

export const priceQuote = (input: QuoteMathInput): QuoteMathResult => {
  assertInput(input);
  const { lockedCurrencyAmount: locked, fixedFee, variableFeeRate: rate } = input;
  if (locked <= 0n) return { kind: 'Refused', reason: 'NOT_POSITIVE' };
  // M: receiving minor units per sending minor unit.
  const perSendingMinor = multiply(input.sendingMinorToMsat, input.msatToReceivingMinor);

  let totalSendingAmount: bigint;
  let totalReceivingAmount: bigint;
  if (input.lockedCurrencySide === 'SENDING') {
    totalSendingAmount = locked;
    const feesIncluded = fixedFee + variableFeeOf(locked, rate);
    if (feesIncluded >= locked) return { kind: 'Refused', reason: 'FEES_EXCEED_AMOUNT', feesIncluded };
    totalReceivingAmount = floorDiv((locked - feesIncluded) * perSendingMinor.numerator, perSendingMinor.denominator);
    if (totalReceivingAmount <= 0n) return { kind: 'Refused', reason: 'RECEIVES_NOTHING' };
  } else {
    totalReceivingAmount = locked;
    const converted = ceilDiv(locked * perSendingMinor.denominator, perSendingMinor.numerator);
    totalSendingAmount = leastSendingAmountFor(converted, fixedFee, rate);
  }

  const variableFeeAmount = variableFeeOf(totalSendingAmount, rate);
  const feesIncluded = fixedFee + variableFeeAmount;
  const netOfVariableFee = ratio(rate.denominator - rate.numerator, rate.denominator);
  return {
    kind: 'Priced',
    totalSendingAmount,
    totalReceivingAmount,
    convertedAmount: totalSendingAmount - feesIncluded,
    fixedFee,
    variableFeeAmount,
    feesIncluded,
    exchangeRate: exchangeRateOf(input),
    serviceApiMultiplier: toDecimalString(multiply(input.sendingMinorToMsat, netOfVariableFee)),
    counterpartyMultiplier: toDecimalString(input.msatToReceivingMinor),
    serviceApiVariableFeeRate: toDecimalString(rate),
  };
};
