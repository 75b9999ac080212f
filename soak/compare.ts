import { readFileSync } from 'node:fs';

// npm run soak:compare -- a.json b.json: the honest platforms' p50/p99 per operation of two soak
// reports (--report) side by side, e.g. a run without --hostile and the same run with it.

type Row = { operation: string; count: number; p50Ms: number; p99Ms: number };
type Report = {
  options?: { hostile?: boolean; minutes?: number; replicas?: number; chaos?: boolean; seed?: number };
  operations: Row[];
  passed?: boolean;
};

const read = (path: string): Report => {
  const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
  if (!Array.isArray(report.operations)) throw new Error(`${path} is not a soak report (no operations).`);
  return report;
};

const describe = (path: string, report: Report): string => {
  const options = report.options ?? {};
  return `${path}: ${options.minutes} min, ${options.replicas} replica(s)${options.chaos ? ', chaos' : ''}${
    options.hostile ? ', hostile platform' : ''
  }, seed ${options.seed}, ${report.passed ? 'passed' : 'FAILED'}`;
};

/** One line per operation either report has; a ratio of b's p99 to a's where both ran it. */
export const compareRows = (a: Row[], b: Row[]): string[] => {
  const names = [...new Set([...a.map((row) => row.operation), ...b.map((row) => row.operation)])].sort();
  const width = Math.max(10, ...names.map((name) => name.length));
  const cell = (row: Row | undefined) =>
    row
      ? `${String(row.count).padStart(6)} ${String(row.p50Ms).padStart(7)} ${String(row.p99Ms).padStart(7)}`
      : `${'—'.padStart(6)} ${'—'.padStart(7)} ${'—'.padStart(7)}`;
  const lines = [
    `${'operation'.padEnd(width)}  ${'a: n'.padStart(6)} ${'p50'.padStart(7)} ${'p99'.padStart(7)}  ${'b: n'.padStart(6)}` +
      ` ${'p50'.padStart(7)} ${'p99'.padStart(7)}  p99 b/a`,
  ];
  for (const name of names) {
    const left = a.find((row) => row.operation === name);
    const right = b.find((row) => row.operation === name);
    const ratio = left && right && left.p99Ms > 0 ? (right.p99Ms / left.p99Ms).toFixed(2) : '';
    lines.push(`${name.padEnd(width)}  ${cell(left)}  ${cell(right)}  ${ratio.padStart(7)}`);
  }
  return lines;
};

const main = () => {
  const [first, second] = process.argv.slice(2);
  if (!first || !second) throw new Error('usage: npm run soak:compare -- a.json b.json');
  const a = read(first);
  const b = read(second);
  console.log(`a = ${describe(first, a)}\nb = ${describe(second, b)}\n(honest platforms only; latencies in ms, retries included)\n`);
  for (const line of compareRows(a.operations, b.operations)) console.log(line);
};

if (require.main === module) main();
