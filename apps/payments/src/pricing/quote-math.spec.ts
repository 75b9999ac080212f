// Pins down the quote formula: the reference's worked example both ways round, the rounding rule
// (the house rounds its fees up and the receiving amount down, so no money is ever created), the
// least sending amount for a locked receiving amount, currency decimals from 0 to 8, tiny and
// maximum amounts, and the refusals.
import { parseDecimal, priceQuote, type QuoteMathInput, type Ratio, toDecimalString } from './quote-math';

const r = (numerator: bigint, denominator: bigint): Ratio => ({ numerator, denominator });

/** M = 0.92 receiving per sending minor unit, F = 200, r = 0.3 %: the reference's worked example. */
const example = (overrides: Partial<QuoteMathInput> = {}): QuoteMathInput => ({
  lockedCurrencySide: 'SENDING',
  lockedCurrencyAmount: 100_000n,
  sendingDecimals: 2,
  receivingDecimals: 2,
  sendingMinorToMsat: r(10n, 1n),
  msatToReceivingMinor: r(92n, 1000n),
  fixedFee: 200n,
  variableFeeRate: r(3n, 1000n),
  ...overrides,
});

const priced = (input: QuoteMathInput) => {
  const result = priceQuote(input);
  if (result.kind !== 'Priced') throw new Error(`Expected a price, got ${JSON.stringify(result)}.`);
  return result;
};

describe('priceQuote with the sending side locked', () => {
  it('deducts the fees from the sending amount and converts the rest, as the reference example does', () => {
    expect(priced(example())).toEqual({
      kind: 'Priced',
      totalSendingAmount: 100_000n,
      fixedFee: 200n,
      variableFeeAmount: 300n,
      feesIncluded: 500n,
      convertedAmount: 99_500n,
      totalReceivingAmount: 91_540n,
      exchangeRate: '1.08695652174',
      serviceApiMultiplier: '9.97',
      counterpartyMultiplier: '0.092',
      serviceApiVariableFeeRate: '0.003',
    });
  });

  it('rounds the variable fee up and the receiving amount down', () => {
    // 100 001 × 0.003 = 300.003 → 301; (100 001 − 501) × 0.92 = 91 540.00 → 91 540.
    expect(priced(example({ lockedCurrencyAmount: 100_001n }))).toMatchObject({
      variableFeeAmount: 301n,
      feesIncluded: 501n,
      totalReceivingAmount: 91_540n,
    });
    // (100 003 − 501) × 0.92 = 91 541.84 → 91 541.
    expect(priced(example({ lockedCurrencyAmount: 100_003n })).totalReceivingAmount).toBe(91_541n);
  });

  it('charges no fee when the schedule has none', () => {
    expect(priced(example({ fixedFee: 0n, variableFeeRate: r(0n, 1n) }))).toMatchObject({
      feesIncluded: 0n,
      convertedAmount: 100_000n,
      totalReceivingAmount: 92_000n,
      serviceApiVariableFeeRate: '0',
    });
  });

  it('refuses an amount the fees take entirely', () => {
    expect(priceQuote(example({ lockedCurrencyAmount: 201n }))).toEqual({
      kind: 'Refused',
      reason: 'FEES_EXCEED_AMOUNT',
      feesIncluded: 201n,
    });
    expect(priceQuote(example({ lockedCurrencyAmount: 1n }))).toEqual({
      kind: 'Refused',
      reason: 'FEES_EXCEED_AMOUNT',
      feesIncluded: 201n,
    });
  });

  it('refuses an amount that converts to less than one receiving minor unit', () => {
    // One sending minor unit is worth 0.5 receiving minor units.
    const halves = example({ fixedFee: 0n, variableFeeRate: r(0n, 1n), sendingMinorToMsat: r(1n, 1n), msatToReceivingMinor: r(1n, 2n) });
    expect(priceQuote({ ...halves, lockedCurrencyAmount: 1n })).toEqual({ kind: 'Refused', reason: 'RECEIVES_NOTHING' });
    expect(priced({ ...halves, lockedCurrencyAmount: 2n }).totalReceivingAmount).toBe(1n);
    expect(priced({ ...halves, lockedCurrencyAmount: 3n }).totalReceivingAmount).toBe(1n);
  });

  it('keeps the maximum locked amount exact, beyond what a JSON number holds', () => {
    const result = priced(
      example({ lockedCurrencyAmount: 9_000_000_000_000_000n, sendingMinorToMsat: r(1_000n, 1n), msatToReceivingMinor: r(1n, 1n) }),
    );
    expect(result.feesIncluded).toBe(200n + 27_000_000_000_000n);
    expect(result.totalReceivingAmount).toBe((9_000_000_000_000_000n - 27_000_000_000_200n) * 1_000n);
  });
});

describe('priceQuote with the receiving side locked', () => {
  it('finds the sending amount of the reference example from its receiving amount', () => {
    expect(priced(example({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 91_540n }))).toMatchObject({
      totalSendingAmount: 100_000n,
      totalReceivingAmount: 91_540n,
      feesIncluded: 500n,
      convertedAmount: 99_500n,
    });
  });

  it('asks for the least whole sending amount that covers the receiving amount', () => {
    const result = priced(example({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 91_541n }));
    expect(result).toMatchObject({ totalSendingAmount: 100_003n, totalReceivingAmount: 91_541n, feesIncluded: 501n });
    // One minor unit less would deliver less than the locked amount.
    expect(priced(example({ lockedCurrencyAmount: 100_002n })).totalReceivingAmount).toBe(91_540n);
  });

  it('prices the smallest receiving amount', () => {
    expect(priced(example({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 1n }))).toMatchObject({
      totalSendingAmount: 203n,
      totalReceivingAmount: 1n,
      feesIncluded: 201n,
      convertedAmount: 2n,
    });
  });

  it('prices the maximum receiving amount exactly', () => {
    const result = priced(example({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: 9_000_000_000_000_000n }));
    expect(result.totalReceivingAmount).toBe(9_000_000_000_000_000n);
    expect(priced(example({ lockedCurrencyAmount: result.totalSendingAmount })).totalReceivingAmount).toBeGreaterThanOrEqual(
      9_000_000_000_000_000n,
    );
    expect(priced(example({ lockedCurrencyAmount: result.totalSendingAmount - 1n })).totalReceivingAmount).toBeLessThan(
      9_000_000_000_000_000n,
    );
  });
});

describe('currency decimals', () => {
  // A 0-decimal currency worth 0.0067 USD per unit to BTC (8 decimals) at 65 000 USD: 1 unit = 0.0067 / 65 000 × 10^11 mSAT.
  const zeroToEight: QuoteMathInput = {
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 150_000n,
    sendingDecimals: 0,
    receivingDecimals: 8,
    sendingMinorToMsat: r(67n * 10n ** 11n, 10_000n * 65_000n),
    msatToReceivingMinor: r(1n, 1_000n),
    fixedFee: 0n,
    variableFeeRate: r(0n, 1n),
  };

  it('converts a 0-decimal amount to satoshis and states the rate in major units', () => {
    const result = priced(zeroToEight);
    // 150 000 × 0.0067 / 65 000 BTC = 0.0154615384… BTC = 1 546 153.84… sats, rounded down.
    expect(result.totalReceivingAmount).toBe(1_546_153n);
    // 65 000 / 0.0067 units per BTC.
    expect(result.exchangeRate).toBe('9701492.53731');
  });

  it('goes the other way, satoshis to a 0-decimal currency', () => {
    const back: QuoteMathInput = {
      ...zeroToEight,
      sendingDecimals: 8,
      receivingDecimals: 0,
      sendingMinorToMsat: r(1_000n, 1n),
      msatToReceivingMinor: r(10_000n * 65_000n, 67n * 10n ** 11n),
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 1n,
    };
    // One unit costs 0.0067 / 65 000 BTC = 10.3 sats: the sender pays 11.
    expect(priced(back)).toMatchObject({ totalSendingAmount: 11n, totalReceivingAmount: 1n, exchangeRate: '0.000000103076923077' });
  });
});

describe('no money is created, on many generated quotes', () => {
  // A fixed-seed generator, so a failure names a reproducible case.
  let seed = 0x2f6b_1d3an;
  const next = (bound: bigint): bigint => {
    seed = (seed * 6_364_136_223_846_793_005n + 1_442_695_040_888_963_407n) % 2n ** 64n;
    return (seed >> 16n) % bound;
  };

  it('never gives more than the converted amount is worth, and a locked receiving amount costs the least whole sending amount', () => {
    for (let round = 0; round < 2_000; round += 1) {
      const input: QuoteMathInput = {
        lockedCurrencySide: round % 2 === 0 ? 'SENDING' : 'RECEIVING',
        lockedCurrencyAmount: 1n + next(10n ** BigInt(1 + Number(next(15n)))),
        sendingDecimals: Number(next(9n)),
        receivingDecimals: Number(next(9n)),
        sendingMinorToMsat: r(1n + next(10n ** 9n), 1n + next(10n ** 6n)),
        msatToReceivingMinor: r(1n + next(10n ** 6n), 1n + next(10n ** 9n)),
        fixedFee: next(1_000n),
        variableFeeRate: r(next(500n), 10_000n),
      };
      const result = priceQuote(input);
      if (result.kind === 'Refused') {
        expect(input.lockedCurrencySide).toBe('SENDING');
        continue;
      }
      const { sendingMinorToMsat: toMsat, msatToReceivingMinor: fromMsat } = input;
      const context = JSON.stringify(input, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
      // R ≤ N × M, checked without division.
      expect({
        context,
        ok:
          result.totalReceivingAmount * toMsat.denominator * fromMsat.denominator <=
          result.convertedAmount * toMsat.numerator * fromMsat.numerator,
      }).toEqual({ context, ok: true });
      expect(result.feesIncluded).toBe(input.fixedFee + (result.totalSendingAmount * input.variableFeeRate.numerator + 9_999n) / 10_000n);
      expect(result.convertedAmount + result.feesIncluded).toBe(result.totalSendingAmount);
      if (input.lockedCurrencySide === 'RECEIVING') {
        expect(result.totalReceivingAmount).toBe(input.lockedCurrencyAmount);
        const atLeast = priceQuote({ ...input, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: result.totalSendingAmount });
        expect({ context, enough: atLeast.kind === 'Priced' && atLeast.totalReceivingAmount >= input.lockedCurrencyAmount }).toEqual({
          context,
          enough: true,
        });
        const oneLess = priceQuote({ ...input, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: result.totalSendingAmount - 1n });
        expect({ context, short: oneLess.kind === 'Refused' || oneLess.totalReceivingAmount < input.lockedCurrencyAmount }).toEqual({
          context,
          short: true,
        });
      }
    }
  });
});

describe('refusals and guards', () => {
  it.each([0n, -1n, -9_000_000_000_000_000n])('refuses a locked amount of %s on either side', (amount) => {
    expect(priceQuote(example({ lockedCurrencyAmount: amount }))).toEqual({ kind: 'Refused', reason: 'NOT_POSITIVE' });
    expect(priceQuote(example({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: amount }))).toEqual({
      kind: 'Refused',
      reason: 'NOT_POSITIVE',
    });
  });

  it('treats a fee schedule outside its bounds as a programming error', () => {
    expect(() => priceQuote(example({ variableFeeRate: r(1n, 1n) }))).toThrow(RangeError);
    expect(() => priceQuote(example({ fixedFee: -1n }))).toThrow(RangeError);
  });
});

describe('decimals', () => {
  it.each([
    ['1.08', r(108n, 100n)],
    ['65000', r(65_000n, 1n)],
    ['0.00065', r(65n, 100_000n)],
  ])('parses %s exactly', (text, expected) => {
    expect(parseDecimal(text)).toEqual(expected);
  });

  it.each(['-1', '1e5', '1.', '', 'NaN'])('refuses %j', (text) => {
    expect(() => parseDecimal(text)).toThrow(RangeError);
  });

  it.each([
    [r(1n, 3n), '0.333333333333'],
    [r(2n, 3n), '0.666666666667'],
    [r(108n, 100n), '1.08'],
    [r(1n, 65_000n), '0.0000153846153846'],
    [r(4n, 2n), '2'],
    [r(123_456_789_012_345n, 1n), '123456789012345'],
  ])('writes %j as %s', (value, text) => {
    expect(toDecimalString(value)).toBe(text);
  });
});
