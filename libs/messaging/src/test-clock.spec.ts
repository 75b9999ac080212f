// A test stack's shared clock: the system's time plus an offset a test writes to a file, never in production.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@corridor/contracts';
import { advanceTestClock, parseClock, parseClockOffset } from './test-clock';

const clockFile = (): string => join(mkdtempSync(join(tmpdir(), 'corridor-clock-')), 'clock');
const ahead = (clock: { now(): Date }): number => clock.now().getTime() - Date.now();

describe('the test clock', () => {
  it('is the system clock when no file is named', () => {
    expect(parseClock({})).toBe(systemClock);
    expect(parseClock({ CORRIDOR_TEST_CLOCK_FILE: '' })).toBe(systemClock);
  });

  it('is refused in production, with the setting to unset', () => {
    expect(() => parseClock({ NODE_ENV: 'production', CORRIDOR_TEST_CLOCK_FILE: clockFile() })).toThrow(
      /CORRIDOR_TEST_CLOCK_FILE .*unset it in production/,
    );
  });

  it('runs at system time until the file exists, then as far ahead as the test moved it', () => {
    const file = clockFile();
    const clock = parseClock({ CORRIDOR_TEST_CLOCK_FILE: file });
    expect(ahead(clock)).toBeLessThan(1_000);
    expect(advanceTestClock(file, 20_000)).toBe(20_000);
    expect(ahead(clock)).toBeGreaterThanOrEqual(19_000);
    expect(advanceTestClock(file, 5_000)).toBe(25_000);
    expect(ahead(clock)).toBeGreaterThanOrEqual(24_000);
    expect(ahead(clock)).toBeLessThan(26_000);
  });

  it('never runs backwards: a smaller offset written by hand is refused loudly', () => {
    const file = clockFile();
    const clock = parseClock({ CORRIDOR_TEST_CLOCK_FILE: file });
    advanceTestClock(file, 10_000);
    clock.now();
    writeFileSync(file, '5000');
    expect(() => clock.now()).toThrow(/moved the test clock back from 10000 to 5000 ms/);
  });

  it('reads only whole, non-negative milliseconds', () => {
    expect(parseClockOffset(' 1500\n', 'f')).toBe(1_500);
    expect(parseClockOffset('', 'f')).toBe(0);
    expect(() => parseClockOffset('1.5', 'f')).toThrow(/f must hold a whole number of milliseconds/);
    expect(() => parseClockOffset('-1', 'f')).toThrow(/not "-1"/);
  });
});
