import type { DifferenceKind, ShadowDiff } from '@corridor/event-store';

// What `npm run replay -- --rebuild <projection> …` does, decided from its flags, and how a shadow
// rebuild's comparison reads. Pure: the replay script does the work.

export type RebuildPlan =
  /** Build beside the live table and compare; with swap, then put it in place. */
  | { mode: 'shadow'; swap: boolean }
  /** Put an earlier shadow build in place (caught up and compared first). */
  | { mode: 'swap' }
  /** The old way: delete the live rows and refill them; reads miss rows meanwhile. */
  | { mode: 'destructive' }
  | { mode: 'refused'; reason: string };

export const REBUILD_CHOICES = `--rebuild needs a choice:
  --shadow              build a copy beside the live table (which keeps serving and advancing), with progress,
                        then print how it differs from the live rows; nothing live changes
  --shadow --swap       the same, then put the rebuilt table in place in one transaction (the old one is kept
                        in <schema>_retired)
  --swap                put an earlier --shadow build in place: caught up with the live table, compared, swapped
  --destructive         delete the live rows and rebuild them in place: reads miss rows until it ends`;

export const planRebuild = (flags: readonly string[]): RebuildPlan => {
  const shadow = flags.includes('--shadow');
  const swap = flags.includes('--swap');
  const destructive = flags.includes('--destructive');
  if (destructive && (shadow || swap)) {
    const reason = `--destructive rebuilds in place; it cannot be combined with --shadow or --swap.\n${REBUILD_CHOICES}`;
    return { mode: 'refused', reason };
  }
  if (destructive) return { mode: 'destructive' };
  if (shadow) return { mode: 'shadow', swap };
  if (swap) return { mode: 'swap' };
  return { mode: 'refused', reason: REBUILD_CHOICES };
};

const LABELS: Record<DifferenceKind, string> = {
  missing: 'missing from the live table (the rebuild has them)',
  extra: 'extra in the live table (the rebuild has no such row)',
  different: 'different',
};

const brief = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** The comparison as lines for a person: counts, then a few examples of each kind. */
export const describeDiff = (diff: ShadowDiff): string[] => {
  const lines = [
    `${diff.table}: live ${diff.liveRows} rows at position ${diff.livePosition}, ` +
      `rebuilt ${diff.rebuiltRows} rows at position ${diff.shadowPosition}`,
  ];
  const total = diff.counts.missing + diff.counts.extra + diff.counts.different;
  if (total === 0) lines.push('  no difference: the live rows are what the events say');
  for (const kind of ['missing', 'extra', 'different'] as const) {
    if (diff.counts[kind] === 0) continue;
    lines.push(`  ${diff.counts[kind]} ${LABELS[kind]}${diff.counts[kind] > diff.examples[kind].length ? `, e.g.` : ':'}`);
    for (const row of diff.examples[kind]) {
      if (kind === 'different') {
        const columns = row.columns.map((column) => `${column} live ${brief(row.live?.[column])} rebuilt ${brief(row.rebuilt?.[column])}`);
        lines.push(`    ${row.key}: ${columns.join('; ')}`);
      } else {
        lines.push(`    ${row.key}: ${brief(kind === 'missing' ? row.rebuilt : row.live)}`);
      }
    }
  }
  if (diff.inFlight.length > 0) {
    const some = diff.inFlight.slice(0, 5).join(', ');
    lines.push(`  ${diff.inFlight.length} row(s) left out: the live table applied events on them while the shadow caught up (${some})`);
  }
  return lines;
};
