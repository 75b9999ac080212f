// What a stack costs when nothing happens (issue 25): every app as its own process, no traffic, and
// the CPU each process spends per second of idling (pollers, sweeps, consumers, health). A bench
// divides this by its own rate, so at 35 payments/s an idle 40 ms/s is 1.1 ms "per payment".
//   npm run bench:idle            (BENCH_IDLE_SECONDS=20, BENCH_REPLICAS=1)
// No CPU profile option: an in-process profile of an idle app measures mostly the profiler itself
// (its inspector dispatch was 84–90 % of the sampled busy time when tried).
import { Client } from 'pg';
import { startStack } from '../tests/support/stack';
import { stackCpu } from './stack-cpu';

const SECONDS = Number(process.env['BENCH_IDLE_SECONDS'] ?? 20);
const REPLICAS = Number(process.env['BENCH_REPLICAS'] ?? 1);

const main = async (): Promise<void> => {
  const stack = await startStack({ replicasOf: { payments: REPLICAS, accounts: REPLICAS } });
  const pg = new Client({ connectionString: stack.database.url });
  try {
    await pg.connect();
    const database = new URL(stack.database.url).pathname.slice(1);
    // Start-up work (migrations, first sweeps) settles first.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const commits = async (): Promise<number> =>
      Number(
        (await pg.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1', [database])).rows[0]?.n,
      );
    const rowsRead = async (): Promise<number> =>
      Number(
        (
          await pg.query<{ n: string }>('SELECT (tup_returned + tup_fetched)::text AS n FROM pg_stat_database WHERE datname = $1', [
            database,
          ])
        ).rows[0]?.n,
      );
    const [commitsBefore, rowsBefore] = [await commits(), await rowsRead()];
    const before = await stackCpu(stack.subjectPrefix, pg, database);
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1_000));
    const after = await stackCpu(stack.subjectPrefix, pg, database);
    const [commitsAfter, rowsAfter] = [await commits(), await rowsRead()];
    const perSecond = [...after]
      .map(([kind, seconds]) => [kind, Math.round(((seconds - (before.get(kind) ?? 0)) * 1_000) / SECONDS)] as const)
      .sort((a, b) => b[1] - a[1]);
    const total = perSecond.reduce((sum, [, ms]) => sum + ms, 0);
    console.log(`idle stack, ${REPLICAS} replica(s) of payments and accounts, ${SECONDS} s: CPU ms per second by process`);
    for (const [kind, ms] of perSecond) console.log(`  ${kind.padEnd(14)} ${String(ms).padStart(5)} ms/s`);
    const transactionsPerSecond = Math.round((commitsAfter - commitsBefore) / SECONDS);
    console.log(`  PostgreSQL: ${transactionsPerSecond} transactions/s, ${Math.round((rowsAfter - rowsBefore) / SECONDS)} rows read/s`);
    console.log(`  ${'total'.padEnd(14)} ${String(total).padStart(5)} ms/s (${(total / 10).toFixed(1)} % of one core)`);
  } finally {
    await pg.end();
    await stack.close();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
