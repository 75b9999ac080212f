import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Ceilings } from './ceilings';

// Every bench's figures printed beside the same run's ceiling, with the ratio and the issue's
// target (PASS/MISS) where there is one. Under `npm run bench:all` (BENCH_REPORT set) the bench
// also writes them as JSON for the one report.

/** A target on the figure itself (absolute) or on its ratio to its ceiling. */
export type Target =
  | { kind: 'ratio-at-least'; ratio: number; text: string }
  | { kind: 'at-least'; value: number; text: string }
  | { kind: 'below'; value: number; text: string };

export type Figure = {
  label: string;
  value: number;
  unit: string;
  /** The same run's ceiling this figure is compared with. */
  ceiling?: { label: string; value: number; unit: string };
  target?: Target;
};
export type ReportedFigure = Figure & { ratio?: number; status?: 'PASS' | 'MISS' };
export type BenchReport = {
  bench: string;
  finishedAt: string;
  machine: { cpus: number; loadAverage: number[] };
  ceilingsSource?: string;
  figures: ReportedFigure[];
  details: unknown;
};

const fixed = (value: number): string =>
  Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en') : String(Math.round(value * 100) / 100);

export const ratioText = (ratio: number): string =>
  ratio >= 1
    ? `${fixed(ratio)}×`
    : ratio >= 0.1
      ? `${Math.round(ratio * 1000) / 10} %`
      : `1/${fixed(1 / ratio)} (${Math.round(ratio * 1000) / 10} %)`;

export const judge = (figure: Figure): ReportedFigure => {
  const ratio = figure.ceiling && figure.ceiling.value > 0 ? figure.value / figure.ceiling.value : undefined;
  const target = figure.target;
  const status = !target
    ? undefined
    : target.kind === 'ratio-at-least'
      ? ratio !== undefined && ratio >= target.ratio
        ? 'PASS'
        : 'MISS'
      : target.kind === 'at-least'
        ? figure.value >= target.value
          ? 'PASS'
          : 'MISS'
        : figure.value < target.value
          ? 'PASS'
          : 'MISS';
  return { ...figure, ...(ratio !== undefined ? { ratio: Math.round(ratio * 10_000) / 10_000 } : {}), ...(status ? { status } : {}) };
};

export const figureLine = (figure: ReportedFigure): string =>
  [
    `${figure.label.padEnd(48)} ${fixed(figure.value).padStart(9)} ${figure.unit.padEnd(12)}`,
    figure.ceiling
      ? ` | ceiling ${figure.ceiling.label} ${fixed(figure.ceiling.value)} ${figure.ceiling.unit} | ratio ${ratioText(figure.ratio ?? 0)}`
      : '',
    figure.target ? ` | target ${figure.target.text}: ${figure.status}` : '',
  ].join('');

/** The bare-hop rate as a figure's ceiling. */
export const bareHopCeiling = (ceilings: Ceilings): Figure['ceiling'] =>
  ceilings.bareHop ? { label: 'bare hop', value: ceilings.bareHop.perSecond, unit: 'req/s' } : undefined;

/** Prints the figures beside their ceilings and, under bench:all, writes them to BENCH_REPORT. */
export const reportBench = (bench: string, ceilings: Ceilings | undefined, figures: Figure[], details: unknown): BenchReport => {
  const judged = figures.map(judge);
  const report: BenchReport = {
    bench,
    finishedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, loadAverage: loadavg().map((value) => Math.round(value * 10) / 10) },
    ...(ceilings ? { ceilingsSource: ceilings.source } : {}),
    figures: judged,
    details,
  };
  console.log(
    `\n${bench}: figures beside the same run's ceilings (load average now ${report.machine.loadAverage.join(' ')} ` +
      `on ${report.machine.cpus} CPUs)`,
  );
  for (const figure of judged) console.log(`  ${figureLine(figure)}`);
  const file = process.env['BENCH_REPORT'];
  if (file) writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return report;
};
