// Pins down which text the shared email pattern accepts: the addresses the old pattern took, less
// the ones with empty domain labels, and nothing past 254 characters.
import { isEmailAddress, trimTrailing } from './text-patterns';

describe('isEmailAddress', () => {
  it.each(['a@b.co', 'john.doe+tag@mail.example.com', 'x@sub-domain.example.museum', 'üser@exämple.de'])('accepts %s', (value) => {
    expect(isEmailAddress(value)).toBe(true);
  });

  it.each(['', 'plain', 'a@b', '@b.co', 'a@.b.co', 'a@b..co', 'a@b.co.', 'a b@c.de', 'a@b@c.de', 'a@b .co'])('refuses %j', (value) => {
    expect(isEmailAddress(value)).toBe(false);
  });

  it('refuses an address longer than 254 characters, however well formed', () => {
    expect(isEmailAddress(`${'a'.repeat(64)}@${'b'.repeat(180)}.com`)).toBe(true);
    expect(isEmailAddress(`${'a'.repeat(64)}@${'b'.repeat(186)}.com`)).toBe(false);
  });
});

describe('trimTrailing', () => {
  it.each([
    ['1.2500', '0', '1.25'],
    ['https://api.example.com///', '/', 'https://api.example.com'],
    ['000', '0', ''],
    ['abc', '/', 'abc'],
    ['', '0', ''],
  ])('drops the run at the end of %j (%s)', (value, char, expected) => {
    expect(trimTrailing(value, char)).toBe(expected);
  });

  it('keeps the same character elsewhere in the text', () => {
    expect(trimTrailing('/a/b/', '/')).toBe('/a/b');
  });

  it('takes one pass on a long run (no quadratic rescans)', () => {
    expect(trimTrailing(`1${'0'.repeat(100_000)}`, '0')).toBe('1');
  });
});
