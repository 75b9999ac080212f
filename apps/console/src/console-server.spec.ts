import { parseWindow } from './console-server';

describe('the time window of a trace page', () => {
  it('given no from or to, when parsed, then the trace is not bounded', () => {
    expect(parseWindow(null, '')).toEqual({ window: {} });
  });

  it('given ISO times, when parsed, then both bounds are kept in UTC', () => {
    expect(parseWindow('2026-11-27T14:00:00+01:00', '2026-11-27T14:00:00Z')).toEqual({
      window: { from: '2026-11-27T13:00:00.000Z', to: '2026-11-27T14:00:00.000Z' },
    });
  });

  it('given something that is not a time, when parsed, then it is refused with the reason', () => {
    expect(parseWindow('yesterday', null)).toEqual({ error: expect.stringContaining('from needs a time') });
  });
});
