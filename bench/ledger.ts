import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from 'nats';
import { Client } from 'pg';
import { DomainError, newId, type RequestContext, subjects } from '@corridor/contracts';
import { type AppendMetadata, createPostgresEventStore, type EventStore } from '@corridor/event-store';
import { publishEvent, ServiceClient } from '@corridor/messaging';
import { createTestDatabase, requireNats, requirePostgres, uniqueSubjectPrefix, waitUntil } from '@corridor/testing';
import { internalAccountIdFor } from '../apps/accounts/src/internal-accounts/open-accounts-when-customer-created.policy';
import { freePort } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { reportBench } from './report';

// Issue 3's ledger benchmark. The accounts service runs as its own process on a fresh database;
// 32 callers send hold → settle pairs over NATS (ServiceClient, no HTTP) to (a) one hot account
// and (b) 1,000 accounts. The ceiling is the same append pattern — one event per operation,
// expected-version appends, one stream or 1,000 streams — straight on the bare EventStore port.
//   npm run bench:ledger          (BENCH_SECONDS=10, BENCH_LEDGER_ACCOUNTS=1000 by default)

const CALLERS = 32;
const SPREAD_ACCOUNTS = Number(process.env['BENCH_LEDGER_ACCOUNTS'] ?? 1_000);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const WARM_UP_SECONDS = Math.min(3, SECONDS);
const FUNDS = '1000000000000';
const root = join(__dirname, '..');

/**
 * CPU seconds of each process, by kind,, from /proc (Linux only; empty elsewhere): where a
 * phase's CPU went — the accounts service, this driver, PostgreSQL, NATS, everything else.
 */
const cpuSeconds = (accountsPid: number | undefined): Map<string, Map<string, number>> => {
  const totals = new Map<string, Map<string, number>>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return totals;
  }
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      const kind =
        Number(pid) === accountsPid
          ? 'accounts service'
          : Number(pid) === process.pid
            ? 'bench driver'
            : name.startsWith('postgres')
              ? 'postgres'
              : name.startsWith('nats')
                ? 'nats-server'
                : 'other';
      totals.set(kind, (totals.get(kind) ?? new Map()).set(pid, seconds));
    } catch {
      // The process ended while we looked.
    }
  }
  return totals;
};

let accountsPid: number | undefined;

/** Runs work and prints how many CPU-seconds per operation each kind of process spent on it. */
const withCpu = async (work: () => Promise<Figures>): Promise<Figures> => {
  const before = cpuSeconds(accountsPid);
  const figures = await work();
  const after = cpuSeconds(accountsPid);
  if (after.size > 0 && figures.operations > 0) {
    // Per process, so one that ended or started during the phase does not skew its kind.
    const spent = (kind: string, pids: Map<string, number>) =>
      [...pids].reduce((sum, [pid, seconds]) => sum + seconds - (before.get(kind)?.get(pid) ?? 0), 0);
    const split = [...after]
      .map(([kind, pids]) => [kind, (spent(kind, pids) / figures.operations) * 1e6] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([kind, micros]) => `${kind} ${Math.round(micros)}`);
    console.log(`  CPU µs per operation: ${split.join(', ')}`);
  }
  return figures;
};

type Figures = { opsPerSecond: number; pairsPerSecond: number; p50Ms: number; p99Ms: number; operations: number; errors: number };

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;

/**
 * Runs `CALLERS` loops for `seconds`; each loop does hold → settle pairs on the account its caller
 * picks, timing every operation. A pair's two operations count as 2.
 */
const drive = async (
  title: string,
  seconds: number,
  pairOn: (caller: number, round: number) => { hold: () => Promise<unknown>; settle: () => Promise<unknown> },
): Promise<Figures> => {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: unknown;
  const started = performance.now();
  const deadline = started + seconds * 1_000;
  const timed = async (operation: () => Promise<unknown>): Promise<boolean> => {
    const begin = performance.now();
    try {
      await operation();
      latencies.push(performance.now() - begin);
      return true;
    } catch (error) {
      errors += 1;
      firstError ??= error;
      return false;
    }
  };
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      for (let round = 0; performance.now() < deadline; round += 1) {
        const pair = pairOn(caller, round);
        if (await timed(pair.hold)) await timed(pair.settle);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1_000;
  latencies.sort((a, b) => a - b);
  const figures = {
    opsPerSecond: Math.round(latencies.length / elapsed),
    pairsPerSecond: Math.round(latencies.length / 2 / elapsed),
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    operations: latencies.length,
    errors,
  };
  console.log(
    `${title.padEnd(40)} ${String(figures.opsPerSecond).padStart(6)} ops/s ${String(figures.pairsPerSecond).padStart(6)} ` +
      `pairs/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  errors ${errors}`,
  );
  if (firstError) console.log(`  first error: ${firstError instanceof Error ? firstError.message : String(firstError)}`);
  return figures;
};

const contextOf = (platformId: string): RequestContext => ({
  platformId,
  actor: { kind: 'system', name: 'bench' },
  requestId: randomUUID(),
  correlationId: randomUUID(),
});

/** Caller c works on accounts c, c + 32, c + 64… in turn, so no two callers share an account. */
const spreadAccount = (accounts: string[], caller: number, round: number): string => {
  const owned = Math.ceil((accounts.length - caller) / CALLERS);
  return accounts[caller + CALLERS * (round % owned)]!;
};

const startService = async (databaseUrl: string) => {
  await requireNats();
  const subjectPrefix = uniqueSubjectPrefix();
  const natsUrl = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
  const healthPort = await freePort();
  const logs: string[] = [];
  const args = [
    '-r',
    '@swc-node/register',
    ...(process.env['BENCH_CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['BENCH_CPU_PROF']}`] : []),
  ];
  const child: ChildProcess = spawn(process.execPath, [...args, join(root, 'apps/accounts/src/main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      CORRIDOR_SUBJECT_PREFIX: subjectPrefix,
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  accountsPid = child.pid;
  child.stdout?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const client = new ServiceClient({ natsUrl, subjectPrefix, name: 'bench-ledger' });
  const nats = await connect({ servers: natsUrl, name: 'bench-ledger-setup' });
  const close = async () => {
    await client.close().catch(() => undefined);
    await nats.drain().catch(() => undefined);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUntil(
      'the accounts service answering its health check',
      // A refused connection only means the process is still starting.
      () =>
        fetch(`http://127.0.0.1:${healthPort}/health`).then(
          (response) => response.status === 200,
          () => false,
        ),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await client.onApplicationBootstrap();
    const platformId = newId('Platform');
    const call = (subject: string, data: unknown) => client.request(subject, data, { context: contextOf(platformId), timeoutMs: 30_000 });

    // Accounts are opened the way production opens them: the open-accounts policy reacting to CustomerCreated.
    const customers = Array.from({ length: SPREAD_ACCOUNTS + 1 }, () => newId('Customer'));
    for (const customerId of customers) {
      const occurredAt = new Date().toISOString();
      await publishEvent(
        nats.jetstream(),
        `${subjectPrefix}.events.customers.Customer.CustomerCreated`,
        {
          eventId: randomUUID(),
          type: 'CustomerCreated',
          streamId: customerId,
          streamPosition: 1,
          occurredAt,
          platformId,
          correlationId: randomUUID(),
          data: {
            customerId,
            platformId,
            customerType: 'INDIVIDUAL',
            profile: { platformCustomerId: customerId, currencies: ['USD'] },
            createdAt: occurredAt,
          },
        },
        randomUUID(),
      );
    }
    const [hot, ...spread] = customers.map((customerId) => internalAccountIdFor(customerId, 'USD')) as [string, ...string[]];
    // Funding is a credit over the funding rail; it fails with REFERENCE_NOT_FOUND (the ledger's answer for an
    // account it does not know) until the policy has opened the account.
    const fund = async (accountId: string) =>
      waitUntil(
        `funding ${accountId}`,
        async () => {
          try {
            await call(subjects.accounts.ledger.credit, {
              accountId,
              operationId: `fund:${accountId}`,
              amount: FUNDS,
              currency: 'USD',
              cause: { kind: 'FUNDING', id: `Funding:${accountId}` },
            });
            return true;
          } catch (error) {
            if (error instanceof DomainError && error.code === 'REFERENCE_NOT_FOUND') return false;
            throw error;
          }
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
    const queue = [hot, ...spread];
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        for (let accountId = queue.shift(); accountId; accountId = queue.shift()) await fund(accountId);
      }),
    );
    console.log(`opened and funded ${SPREAD_ACCOUNTS + 1} accounts`);

    // The outbox relay publishes every ledger event to JetStream after the reply; a phase that leaves
    // it behind would hand its backlog to the next phase, so each starts with the relay caught up.
    const relayLag = async (): Promise<number> => {
      const db = new Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query<{ lag: string }>(
          `SELECT (SELECT coalesce(max(global_position), 0) FROM accounts.events) - (SELECT coalesce(max(position), 0)
           FROM accounts.outbox_checkpoints) AS lag`,
        );
        return Number(rows[0]?.lag ?? 0);
      } finally {
        await db.end();
      }
    };
    const settleRelay = async () => {
      const behind = await relayLag();
      const started = performance.now();
      await waitUntil('the outbox relay catching up', async () => (await relayLag()) === 0, { timeoutMs: 300_000, intervalMs: 200 });
      if (behind > 0)
        console.log(`  outbox relay was ${behind} events behind; caught up in ${((performance.now() - started) / 1_000).toFixed(1)} s`);
    };
    const pairOn = (accountId: string) => {
      const n = randomUUID();
      return {
        hold: () =>
          call(subjects.accounts.ledger.hold, {
            accountId,
            operationId: `hold:${n}`,
            holdId: `Hold:${n}`,
            amount: '1',
            currency: 'USD',
            cause: { kind: 'TRANSACTION', id: `Transaction:${n}` },
          }),
        settle: () => call(subjects.accounts.ledger.settle, { accountId, operationId: `settle:${n}`, holdId: `Hold:${n}` }),
      };
    };
    return {
      warmUp: () => drive('warm-up (service, spread)', WARM_UP_SECONDS, (caller, round) => pairOn(spreadAccount(spread, caller, round))),
      hot: () => withCpu(() => drive('service, one hot account', SECONDS, () => pairOn(hot))),
      spread: () =>
        withCpu(() =>
          drive(`service, ${SPREAD_ACCOUNTS} accounts`, SECONDS, (caller, round) => pairOn(spreadAccount(spread, caller, round))),
        ),
      settleRelay,
      close,
    };
  } catch (error) {
    console.error(logs.join(''));
    await close();
    throw error;
  }
};

/**
 * The ceiling: each operation is one expected-version append of one event shaped like FundsHeld or
 * HoldSettled. Writers of one stream take turns in this process (as the service's writer does),
 * knowing the stream's version, so no append is refused and no stream is read.
 */
const startCeiling = (databaseUrl: string) => {
  const store: EventStore = createPostgresEventStore({ connectionString: databaseUrl, schema: 'bench_ceiling' });
  const platformId = newId('Platform');
  const versions = new Map<string, { version: number; tail: Promise<unknown> }>();
  const append = (streamId: string, type: string, data: Record<string, unknown>) => {
    const stream = versions.get(streamId) ?? { version: 0, tail: Promise.resolve() };
    versions.set(streamId, stream);
    const metadata: AppendMetadata = {
      platformId,
      correlationId: randomUUID(),
      requestId: randomUUID(),
      actor: { kind: 'system', name: 'bench' },
    };
    const done = stream.tail.then(async () => {
      const appended = await store.appendToStream(streamId, [{ type, data }], { expectedVersion: stream.version, metadata });
      stream.version = appended.version;
    });
    stream.tail = done.catch(() => undefined);
    return done;
  };
  const pairOn = (accountId: string) => {
    const n = randomUUID();
    const common = {
      accountId,
      operationId: `hold:${n}`,
      holdId: `Hold:${n}`,
      amount: '1',
      currency: 'USD',
      cause: { kind: 'TRANSACTION', id: `Transaction:${n}` },
    };
    return {
      hold: () =>
        append(accountId, 'FundsHeld', { ...common, counterAccountId: 'SystemAccount:PAYOUT_RAIL:USD', heldAt: new Date().toISOString() }),
      settle: () =>
        append(accountId, 'HoldSettled', {
          ...common,
          operationId: `settle:${n}`,
          releasedAmount: '0',
          counterAccountId: 'SystemAccount:PAYOUT_RAIL:USD',
          settledAt: new Date().toISOString(),
        }),
    };
  };
  const hot = newId('InternalAccount');
  const spread = Array.from({ length: SPREAD_ACCOUNTS }, () => newId('InternalAccount'));
  return {
    warmUp: () => drive('warm-up (ceiling, spread)', WARM_UP_SECONDS, (caller, round) => pairOn(spreadAccount(spread, caller, round))),
    hot: () => withCpu(() => drive('ceiling, one hot stream', SECONDS, () => pairOn(hot))),
    spread: () =>
      withCpu(() => drive(`ceiling, ${SPREAD_ACCOUNTS} streams`, SECONDS, (caller, round) => pairOn(spreadAccount(spread, caller, round)))),
    close: () => store.close(),
  };
};

const main = async () => {
  await requirePostgres();
  const database = await createTestDatabase(undefined, 'corridor_bench_');
  try {
    // The shared bare-append ceiling (1 and 8 writers), first, on the quiet database (or from bench:all).
    const shared = await ceilingsFor(['append'], database.url);
    console.log(
      `ledger: ${CALLERS} callers, ${SECONDS} s per run, load average ${(await import('node:os'))
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')}\n`,
    );
    const serviceBench = await startService(database.url);
    const ceilingBench = startCeiling(database.url);
    let service: { hot: Figures; spread: Figures };
    let ceiling: { hot: Figures; spread: Figures };
    try {
      // Each service phase runs right beside its ceiling, so both see about the same noise from
      // whatever else shares the machine.
      await serviceBench.warmUp();
      await ceilingBench.warmUp();
      await serviceBench.settleRelay();
      const serviceHot = await serviceBench.hot();
      await serviceBench.settleRelay();
      const ceilingHot = await ceilingBench.hot();
      const serviceSpread = await serviceBench.spread();
      await serviceBench.settleRelay();
      const ceilingSpread = await ceilingBench.spread();
      service = { hot: serviceHot, spread: serviceSpread };
      ceiling = { hot: ceilingHot, spread: ceilingSpread };
    } finally {
      await ceilingBench.close();
      await serviceBench.close();
    }
    const summary = {
      measuredAt: new Date().toISOString(),
      callers: CALLERS,
      seconds: SECONDS,
      service,
      ceiling,
      spreadShareOfCeiling: Math.round((service.spread.opsPerSecond / ceiling.spread.opsPerSecond) * 100),
      hotShareOfCeiling: Math.round((service.hot.opsPerSecond / ceiling.hot.opsPerSecond) * 100),
    };
    console.log(
      `\nAcross ${SPREAD_ACCOUNTS} accounts the service reaches ${summary.spreadShareOfCeiling} % of its ceiling (target ≥ 50 %); ` +
        `one hot account does ${service.hot.opsPerSecond} operations/s (target ≥ 500).`,
    );
    // tmp/ is ignored by git: figures are not results to commit, compare them within one run.
    mkdirSync(join(root, 'tmp'), { recursive: true });
    writeFileSync(join(root, 'tmp/bench-ledger-last-run.json'), `${JSON.stringify(summary, null, 2)}\n`);
    reportBench(
      'ledger (accounts over NATS)',
      shared,
      [
        {
          label: 'one hot account ops/s',
          value: service.hot.opsPerSecond,
          unit: 'ops/s',
          ceiling: { label: 'same-pattern appends, one stream', value: ceiling.hot.opsPerSecond, unit: 'ops/s' },
        },
        {
          label: `${SPREAD_ACCOUNTS} accounts ops/s`,
          value: service.spread.opsPerSecond,
          unit: 'ops/s',
          ceiling: { label: `same-pattern appends, ${SPREAD_ACCOUNTS} streams`, value: ceiling.spread.opsPerSecond, unit: 'ops/s' },
          target: { kind: 'ratio-at-least', ratio: 0.5, text: '≥ 50 % (issue 3)' },
        },
        ...(shared.append
          ? [
              {
                label: 'one hot account ops/s',
                value: service.hot.opsPerSecond,
                unit: 'ops/s',
                ceiling: { label: 'bare append, 1 writer', value: shared.append.oneWriter.perSecond, unit: 'appends/s' },
              },
              {
                label: `${SPREAD_ACCOUNTS} accounts ops/s`,
                value: service.spread.opsPerSecond,
                unit: 'ops/s',
                ceiling: { label: 'bare append, 8 writers', value: shared.append.eightWriters.perSecond, unit: 'appends/s' },
              },
            ]
          : []),
      ],
      summary,
    );
  } finally {
    await database.drop();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
