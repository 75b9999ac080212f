import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '@corridor/testing';
import { type Ceilings, CEILING_SECONDS, describeCeilings, measureAppend, measureBareHop, measureReceiver } from './ceilings';
import { type BenchReport, figureLine } from './report';
import { createProgress, type Progress } from '../scripts/progress';

// `npm run bench:all` (issue 17): the ceilings first, on a quiet machine, then every bench in
// sequence, each handed those ceilings (BENCH_CEILINGS) and writing its figures (BENCH_REPORT);
// one JSON report in bench/results/<timestamp>.json with the machine, the load average before and
// after, every figure beside its ceiling with the ratio, and each of the issue's targets as
// PASS/MISS. Each bench runs as its own process group with a time limit, and starts and stops its
// own stack (the benches need different apps and settings); a bench that fails or overruns is
// killed with everything it started, recorded, and makes the command exit 1 at the end.
//   npm run bench:all     (BENCH_ALL_SECONDS=8 per measured phase; BENCH_ALL_ONLY=payments,webhooks;
//                          BENCH_ALL_TIMEOUT_SECONDS=300 per bench)

const root = join(__dirname, '..');
const SECONDS = String(process.env['BENCH_ALL_SECONDS'] ?? 8);
const TIMEOUT_SECONDS = Number(process.env['BENCH_ALL_TIMEOUT_SECONDS'] ?? 300);
const ONLY = process.env['BENCH_ALL_ONLY']
  ?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);

/** Every bench, with the settings that keep bench:all near ten minutes on two cores. */
const benches: {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Run only when the file exists, and figures are optional (a bench not yet on bench/report.ts). */ optional?: true;
}[] = [
  { name: 'customers', script: 'bench/run.ts', env: {} },
  { name: 'payments-scale', script: 'bench/scale.ts', env: {} },
  { name: 'incoming', script: 'bench/incoming.ts', env: { BENCH_INCOMING_CUSTOMERS: '32' } },
  {
    name: 'transactions-list',
    script: 'bench/transactions-list.ts',
    env: { BENCH_SECONDS: String(Math.max(3, Math.round(Number(SECONDS) / 2))) },
  },
  { name: 'bulk-import', script: 'bench/bulk-import.ts', env: { BENCH_BULK_ROWS: '20000' } },
  { name: 'ledger', script: 'bench/ledger.ts', env: { BENCH_LEDGER_ACCOUNTS: '256' } },
  { name: 'hot-account', script: 'bench/hot-account.ts', env: { BENCH_CEILING_SECONDS: SECONDS } },
  { name: 'card-authorizations', script: 'bench/card-authorizations.ts', env: { BENCH_CEILING_SECONDS: SECONDS } },
  { name: 'webhooks', script: 'bench/webhooks.ts', env: { BENCH_WEBHOOKS_BURST: '4000', BENCH_WEBHOOKS_RATE: '500' } },
  { name: 'documents', script: 'bench/documents.ts', env: { BENCH_UPLOADS: '12' } },
  // Issue 17 item 3 (snapshots) adds this one on another branch.
  { name: 'long-stream', script: 'bench/long-stream.ts', env: {}, optional: true },
  { name: 'agent-overhead', script: 'bench/agent-overhead.ts', env: {}, optional: true },
];

const load = (): number[] => loadavg().map((value) => Math.round(value * 100) / 100);

let running: { pid: number } | undefined;
const killGroup = (signal: NodeJS.Signals) => {
  if (!running) return;
  try {
    process.kill(-running.pid, signal);
  } catch {
    // The group has already ended.
  }
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\nbench:all: ${signal}, stopping the running bench and everything it started.`);
    killGroup('SIGTERM');
    setTimeout(() => {
      killGroup('SIGKILL');
      process.exit(1);
    }, 10_000).unref();
  });
}

/** Whole lines of a child's output above the bar; a partial line waits for its end. */
const linesTo = (progress: Progress) => {
  let partial = '';
  return (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) progress.log(line);
  };
};

/**
 * Runs one bench as its own process group; resolves with its exit code (or the reason it was
 * stopped). With a bar on screen the bench's output is printed above it; otherwise it is inherited.
 */
const runBench = (script: string, env: Record<string, string>, progress: Progress): Promise<{ code: number | null; reason?: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, script)], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: progress.shown ? ['inherit', 'pipe', 'pipe'] : 'inherit',
      detached: true,
    });
    if (progress.shown) {
      child.stdout?.on('data', linesTo(progress));
      child.stderr?.on('data', linesTo(progress));
    }
    running = { pid: child.pid! };
    let reason: string | undefined;
    const timer = setTimeout(() => {
      reason = `did not finish within ${TIMEOUT_SECONDS} s`;
      console.error(`\nbench:all: ${script} ${reason}; stopping it and everything it started.`);
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), 15_000).unref();
    }, TIMEOUT_SECONDS * 1000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // Whatever the bench left behind in its group (an app it did not stop) goes with it.
      killGroup('SIGKILL');
      running = undefined;
      resolve({ code, ...(reason ? { reason } : signal ? { reason: `ended by ${signal}` } : {}) });
    });
  });

const main = async (): Promise<number> => {
  const unknown = (ONLY ?? []).filter((name) => !benches.some((bench) => bench.name === name));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_ALL_ONLY names no bench called ${unknown.join(', ')}; the benches are ${benches.map((bench) => bench.name).join(', ')}.`,
    );
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const work = join(root, 'tmp', `bench-all-${stamp}`);
  mkdirSync(work, { recursive: true });
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeMemoryGiBBefore: Math.round(freemem() / 2 ** 30),
    node: process.version,
    loadAverageBefore: load(),
    loadAverageAfter: [] as number[],
  };
  console.log(
    `bench:all on ${machine.cpus} CPUs (${machine.cpuModel}), load average ${machine.loadAverageBefore.join(' ')}; ${SECONDS} s per ` +
      `measured phase\n`,
  );
  if (machine.loadAverageBefore[0]! > machine.cpus / 2)
    console.log(
      `WARNING: the machine is not quiet (1-minute load ${machine.loadAverageBefore[0]} on ${machine.cpus} CPUs); ratios still hold, ` +
        `absolute figures do not.\n`,
    );

  // 1. The ceilings, first, before any bench loads the machine.
  console.log(`Measuring the ceilings (${CEILING_SECONDS} s each) …`);
  const database = await createTestDatabase(undefined, 'corridor_bench_');
  let ceilings: Ceilings;
  try {
    ceilings = {
      measuredAt: new Date().toISOString(),
      source: 'bench:all',
      seconds: CEILING_SECONDS,
      machine: { cpus: machine.cpus, loadAverage: load() },
      bareHop: await measureBareHop(),
      append: { oneWriter: await measureAppend(database.url, 1), eightWriters: await measureAppend(database.url, 8) },
      receiver: await measureReceiver(),
    };
  } finally {
    await database.drop();
  }
  for (const line of describeCeilings(ceilings)) console.log(line);
  const ceilingsFile = join(work, 'ceilings.json');
  writeFileSync(ceilingsFile, JSON.stringify(ceilings, null, 2));

  // 2. Every bench, one after another.
  const results: { bench: string; script: string; seconds: number; exitCode: number | null; error?: string; report?: BenchReport }[] = [];
  const wanted = (entry: (typeof benches)[number]) =>
    (!ONLY || ONLY.includes(entry.name)) && (!entry.optional || existsSync(join(root, entry.script)));
  const selected = benches.filter(wanted);
  // A bar only when both outputs are the terminal: `bench:all > out.txt` keeps the benches' own output on stdout.
  const progress = createProgress({ title: 'bench:all', unit: 'benches', total: selected.length, enabled: process.stdout.isTTY === true });
  for (const bench of selected) {
    const reportFile = join(work, `${bench.name}.json`);
    progress.update(results.length, bench.name);
    (progress.shown ? progress.log : console.log)(`\n===== ${bench.name} (${bench.script}) =====`);
    const began = Date.now();
    const env = { BENCH_SECONDS: SECONDS, ...bench.env, BENCH_CEILINGS: ceilingsFile, BENCH_REPORT: reportFile };
    const { code, reason } = await runBench(bench.script, env, progress);
    const seconds = Math.round((Date.now() - began) / 1000);
    const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as BenchReport) : undefined;
    const error =
      code !== 0
        ? `${code === null ? 'stopped' : `exited with ${code}`}${reason ? ` (${reason})` : ''}`
        : report || bench.optional
          ? undefined
          : 'wrote no figures';
    results.push({
      bench: bench.name,
      script: bench.script,
      seconds,
      exitCode: code,
      ...(error ? { error } : {}),
      ...(report ? { report } : {}),
    });
    (progress.shown ? progress.log : console.log)(`===== ${bench.name}: ${error ? `FAILED, ${error}` : 'done'} in ${seconds} s =====`);
  }
  progress.update(results.length);
  progress.stop();
  machine.loadAverageAfter = load();

  // 3. One report.
  const targets = results.flatMap((result) =>
    (result.report?.figures ?? [])
      .filter((figure) => figure.target)
      .map((figure) => ({
        bench: result.bench,
        label: figure.label,
        value: figure.value,
        unit: figure.unit,
        ratio: figure.ratio,
        target: figure.target!.text,
        status: figure.status,
      })),
  );
  const failures = results.filter((result) => result.error).map((result) => `${result.bench}: ${result.error}`);
  const finishedAt = new Date();
  const summary = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    minutes: Math.round((finishedAt.getTime() - startedAt.getTime()) / 6_000) / 10,
    machine,
    secondsPerPhase: Number(SECONDS),
    ceilings,
    benches: results,
    targets,
    failures,
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  const out = join(__dirname, 'results', `${stamp}.json`);
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  rmSync(work, { recursive: true, force: true });

  console.log(
    `\n================ bench:all, ${summary.minutes} min, load average ${machine.loadAverageBefore.join(' ')} before ` +
      `→ ${machine.loadAverageAfter.join(' ')} after, ${machine.cpus} CPUs ================`,
  );
  console.log('Ceilings (measured first):');
  for (const line of describeCeilings(ceilings)) console.log(line);
  for (const result of results) {
    console.log(`\n${result.bench}${result.error ? `: FAILED (${result.error})` : ''}`);
    for (const figure of result.report?.figures ?? []) console.log(`  ${figureLine(figure)}`);
  }
  console.log("\nTargets (issue 17, as ratios to this run's bare hop where the issue sets a ratio):");
  for (const target of targets)
    console.log(
      `  ${target.status === 'PASS' ? 'PASS' : 'MISS'}  ${target.bench}: ${target.label} ` +
        `= ${target.value} ${target.unit}${target.ratio !== undefined ? ` (ratio ${target.ratio})` : ''}; target ${target.target}`,
    );
  console.log(`\nReport: ${out}`);
  if (failures.length > 0) {
    console.error(`\nbench:all FAILED: ${failures.length} bench(es) did not complete:\n  ${failures.join('\n  ')}`);
    return 1;
  }
  return 0;
};

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench:all FAILED:', error);
    killGroup('SIGKILL');
    process.exit(1);
  },
);
