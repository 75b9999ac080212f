import { wholeNumberSetting } from './whole-number-setting';

const setting = { fallback: 20, min: 1, max: 1000, means: 'a whole number from 1 to 1000' };

describe('a whole-number setting', () => {
  it('given nothing set (or an empty value), then it is the fallback', () => {
    expect(wholeNumberSetting('X', undefined, setting)).toBe(20);
    expect(wholeNumberSetting('X', '', setting)).toBe(20);
  });

  it('given a whole number within its bounds, then it is that number, the bounds included', () => {
    expect(['1', '1000', '37'].map((raw) => wholeNumberSetting('X', raw, setting))).toEqual([1, 1000, 37]);
  });

  it.each(['0', '1001', '2.5', 'ten', '-3'])('given %s, then it names the setting, what it means and what it got', (raw) => {
    expect(() => wholeNumberSetting('X', raw, setting)).toThrow(`X must be a whole number from 1 to 1000, got "${raw}".`);
  });

  it('given no upper bound, then any whole number from the minimum is taken', () => {
    expect(wholeNumberSetting('Y', '9007199254740991', { fallback: 0, min: 0, means: 'a count' })).toBe(9007199254740991);
  });
});
