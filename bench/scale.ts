import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ceilingsFor } from './ceilings';
import { type PaymentsFigures, paymentsFigures, runPayments } from './payments';
import { type Figure, reportBench } from './report';

// The scale curve (issue 17, item 4): the payments bench (quote + execute → COMPLETED, 32 clients)
// with 1 and then 2 replicas of payments and accounts, each on a fresh stack, beside the bare hop
// measured first. Reports payments/s, CPU ms per payment (all of the stack's processes) and CPU ms
// per payment of each service (replicas added up), so the README can say how many cores N
// payments/s need: cores ≈ N × CPU ms per payment ÷ 1,000.
//   npm run bench:scale        (BENCH_SECONDS=10, BENCH_CLIENTS=32, BENCH_SCALE_REPLICAS=1,2)

const REPLICAS = (process.env['BENCH_SCALE_REPLICAS'] ?? '1,2').split(',').map(Number);

const main = async (): Promise<void> => {
  // Measured before either run, on no stack at all: the quietest moment of the bench.
  const ceilings = await ceilingsFor(['bareHop']);
  const runs: PaymentsFigures[] = [];
  for (const replicas of REPLICAS) runs.push((await runPayments(replicas, ceilings)).figures);
  console.log(
    '\n| replicas of payments + accounts | payments/s | execute → COMPLETED p50 / p99 ms | CPU ms per payment (total) | per service |',
  );
  console.log('|---|---|---|---|---|');
  for (const run of runs) {
    const { total, ...perKind } = run.cpuMsPerPayment;
    console.log(
      `| ${run.replicas} | ${run.completedPerSecond} | ${run.executeToCompletedP50Ms} / ${run.executeToCompletedP99Ms} | ${total} ` +
        `| ${Object.entries(perKind)
          .map(([kind, ms]) => `${kind} ${ms}`)
          .join(', ')} |`,
    );
  }
  const one = runs.find((run) => run.replicas === 1);
  const figures: Figure[] = runs.flatMap((run) => [
    ...paymentsFigures(run, ceilings, `, ${run.replicas} replica(s)`),
    ...Object.entries(run.cpuMsPerPayment)
      .filter(([kind]) => kind !== 'total')
      .map(([kind, ms]) => ({ label: `  CPU per payment: ${kind}, ${run.replicas} replica(s)`, value: ms, unit: 'ms' })),
    ...(one && run !== one && one.completedPerSecond > 0
      ? [
          {
            label: `payments/s with ${run.replicas} replicas vs 1`,
            value: run.completedPerSecond,
            unit: 'payments/s',
            ceiling: { label: '1 replica', value: one.completedPerSecond, unit: 'payments/s' },
          },
        ]
      : []),
  ]);
  const report = reportBench('payments scale curve', ceilings, figures, { runs });
  writeFileSync(join(__dirname, 'last-run-scale.json'), `${JSON.stringify(report, null, 2)}\n`);
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
