// Pins down which amounts enter from a request or a message: the text every route's /^\d{1,16}$/
// took (leading zeros included), the accounts ledger's signed and wider form where its bounds say
// so, the JSON integers of the routes that take numbers, and nothing else.
import { DomainError } from './errors';
import { MINOR_UNITS_MAX, type MinorUnitsRule, parseAmount, parseMinorUnits, serializeAmount, toWireAmount } from './money';

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const text: MinorUnitsRule = { field: 'amount', min: 1n, max: SAFE };
const refusalOf = (value: unknown, rule: MinorUnitsRule): DomainError | undefined => {
  try {
    parseMinorUnits(value, rule);
  } catch (error) {
    return error as DomainError;
  }
  return undefined;
};

describe('parseMinorUnits', () => {
  it.each([
    ['a plain amount', '2500', text, 2500n],
    ['leading zeros, as every route took them', '0000000000002500', text, 2500n],
    ['the lowest bound itself', '0', { ...text, min: 0n }, 0n],
    ['the highest bound itself', '9007199254740991', text, SAFE],
    ['16 nines where the route leaves its limit to a rule', '9999999999999999', { ...text, max: MINOR_UNITS_MAX }, MINOR_UNITS_MAX],
    ['a minus where the bounds go below 0', '-5', { field: 'amount', min: -(10n ** 39n - 1n), max: 10n ** 39n - 1n }, -5n],
    ['39 digits where the bounds need them', '1'.repeat(39), { field: 'amount', min: 0n, max: 10n ** 39n - 1n }, BigInt('1'.repeat(39))],
    ['a JSON integer on a route that takes numbers', 2500, { ...text, type: 'number' as const }, 2500n],
  ])('given %s, it reads the exact bigint', (_case, value, rule, expected) => {
    expect(parseMinorUnits(value, rule)).toBe(expected);
  });

  it.each([
    ['a sign', '+5', text],
    ['a minus where the bounds stay at 0 or above', '-5', { ...text, min: 0n }],
    ['a decimal point', '1.5', text],
    ['a trailing point', '15.', text],
    ['an exponent', '1e3', text],
    ['hex', '0x10', text],
    ['leading whitespace', ' 15', text],
    ['trailing whitespace', '15\n', text],
    ['an empty string', '', text],
    ['non-ASCII digits', '١٥', text],
    ['17 digits, even with the value in bounds', '00000000000000001', text],
    ['20 digits', '99999999999999999999', { ...text, max: MINOR_UNITS_MAX }],
    ['a value below the bounds', '0', text],
    ['a value above the bounds', '9007199254740992', text],
    ['a number on a route that takes strings', 15, text],
    ['null', null, text],
    ['a boolean', true, text],
    ['an object', { value: '15' }, text],
    ['a bigint', 15n, text],
    ['a string on a route that takes numbers', '15', { ...text, type: 'number' as const }],
    ['a fraction on a route that takes numbers', 1.5, { ...text, type: 'number' as const }],
    ['an unsafe integer on a route that takes numbers', 2 ** 53, { ...text, max: SAFE, type: 'number' as const }],
    ['NaN', Number.NaN, { ...text, type: 'number' as const }],
    ['0 below a bound of 1 on a route that takes numbers', 0, { ...text, type: 'number' as const }],
  ])('given %s, it answers 400 INVALID_INPUT naming the field and the bounds', (_case, value, rule) => {
    const refusal = refusalOf(value, { ...rule, field: 'policy.limit' });
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal?.toBody()).toMatchObject({ status: 400, code: 'INVALID_INPUT', details: { field: 'policy.limit' } });
    expect(refusal?.message).toContain(`policy.limit must be a whole number of minor units from ${rule.min} to ${rule.max}`);
  });

  it('refuses bounds a number cannot hold, as a programmer error', () => {
    expect(() => parseMinorUnits(1, { field: 'amount', min: 0n, max: MINOR_UNITS_MAX, type: 'number' })).toThrow(RangeError);
    expect(() => parseMinorUnits('1', { field: 'amount', min: 2n, max: 1n })).toThrow(RangeError);
  });
});

describe('the stored and wire forms', () => {
  it('keeps the stored decimal string exact beyond 2^53', () => {
    const stored = serializeAmount({ value: 12345678901234567890n, currency: 'USD' });
    expect(stored).toEqual({ value: '12345678901234567890', currency: 'USD' });
    expect(parseAmount(stored)).toEqual({ value: 12345678901234567890n, currency: 'USD' });
  });

  it('refuses to put on the wire an amount a JSON number cannot hold', () => {
    expect(toWireAmount({ value: SAFE, currency: 'USD' }).amount).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toWireAmount({ value: SAFE + 1n, currency: 'USD' })).toThrow(RangeError);
  });
});
