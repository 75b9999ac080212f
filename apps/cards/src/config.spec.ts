// Pins down the delayed-pull sweep setting as config.ts reads it: a default, a value, and a refusal that names the variable.
import { loadConfig } from './config';

describe('CARD_PULL_SWEEP_SECONDS', () => {
  it('sweeps every second unless set', () => expect(loadConfig({}).pullSweepSeconds).toBe(1));

  it('takes a whole number of seconds', () => expect(loadConfig({ CARD_PULL_SWEEP_SECONDS: '3600' }).pullSweepSeconds).toBe(3_600));

  it.each(['0', '3601', '1.5', 'soon'])('refuses %s, naming the variable and the range', (value) =>
    expect(() => loadConfig({ CARD_PULL_SWEEP_SECONDS: value })).toThrow(
      `CARD_PULL_SWEEP_SECONDS must be a whole number of seconds from 1 to 3600, got "${value}".`,
    ),
  );
});
