import type { ShadowDiff } from '@corridor/event-store';
import { describeDiff, planRebuild, REBUILD_CHOICES } from './rebuild-plan';

describe('planRebuild', () => {
  it('given --rebuild alone, when planned, then it refuses and explains every choice', () => {
    expect(planRebuild([])).toEqual({ mode: 'refused', reason: REBUILD_CHOICES });
    expect(REBUILD_CHOICES).toMatch(/--shadow[\s\S]*--swap[\s\S]*--destructive/);
  });

  it('given --shadow, with or without --swap, when planned, then it builds beside the live table', () => {
    expect(planRebuild(['--shadow'])).toEqual({ mode: 'shadow', swap: false });
    expect(planRebuild(['--swap', '--shadow'])).toEqual({ mode: 'shadow', swap: true });
  });

  it('given --swap alone, when planned, then it swaps an earlier shadow', () => {
    expect(planRebuild(['--swap'])).toEqual({ mode: 'swap' });
  });

  it('given --destructive, when planned, then it rebuilds in place, and never together with a shadow', () => {
    expect(planRebuild(['--destructive'])).toEqual({ mode: 'destructive' });
    const refused = planRebuild(['--destructive', '--shadow']);
    expect(refused).toMatchObject({ mode: 'refused', reason: expect.stringMatching(/cannot be combined/) });
  });
});

describe('describeDiff', () => {
  const base: ShadowDiff = {
    table: 'customers',
    livePosition: 42n,
    shadowPosition: 42n,
    liveRows: 3,
    rebuiltRows: 3,
    counts: { missing: 0, extra: 0, different: 0 },
    examples: { missing: [], extra: [], different: [] },
    inFlight: [],
  };

  it('given equal tables, when described, then it says there is no difference', () => {
    expect(describeDiff(base)).toEqual([
      'customers: live 3 rows at position 42, rebuilt 3 rows at position 42',
      '  no difference: the live rows are what the events say',
    ]);
  });

  it('given a corrupted row, when described, then it names the row and each differing column with both values', () => {
    const lines = describeDiff({
      ...base,
      counts: { missing: 1, extra: 0, different: 1 },
      examples: {
        missing: [{ key: 'c-9', live: null, rebuilt: { id: 'c-9' }, columns: [] }],
        extra: [],
        different: [{ key: 'c-7', live: { id: 'c-7', status: 'ACTIVE' }, rebuilt: { id: 'c-7', status: 'PENDING' }, columns: ['status'] }],
      },
    });
    expect(lines).toContain('    c-7: status live "ACTIVE" rebuilt "PENDING"');
    expect(lines).toContain('  1 missing from the live table (the rebuild has them):');
    expect(lines).toContain('    c-9: {"id":"c-9"}');
  });
});
