import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect, JSONCodec } from 'nats';
import { Client } from 'pg';
import { assertLedgerConserved } from '@corridor/testing';
import { basic, type Credentials } from '../tests/support/api';
import { freePort, startStack } from '../tests/support/stack';
import { type Ceilings, ceilingsFor, stopChild } from './ceilings';
import { bareHopCeiling, type Figure, reportBench } from './report';
import { printStatements, resetStatements } from './pg-statements';
import { cpuMsPer, stackCpu } from './stack-cpu';

// Quote execution (issue 5): every app as its own process on a fresh database, the sandbox rail
// with no delay. 32 clients each loop: POST /quotes, POST /quotes/{id}/execute, then wait for the
// payment's COMPLETED (the PaymentCompleted integration event on JetStream's subject, so no
// polling adds load). Each client pays from its own funded USD account to a EUR bank account.
// Prints completed payments/s and p50/p99 of execute-to-COMPLETED (from sending the execute to
// the event's arrival), and CPU ms per completed payment of each of the stack's processes over
// the measured window (from /proc), then checks the ledger's conservation.
// The bare hop (bench/ceilings.ts) is measured first, on the quiet stack, and every figure is
// printed beside it. BENCH_REPLICAS=2 adds a second payments and a second accounts process on the
// same database and subject prefix (NATS spreads requests over each queue group); bench/scale.ts
// runs 1 and 2 side by side.
//   npm run bench:payments          (BENCH_SECONDS=10, BENCH_CLIENTS=32, BENCH_REPLICAS=1, BENCH_CPU_PROF=<dir>)

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CLIENTS = Number(process.env['BENCH_CLIENTS'] ?? 32);
const WARM_UP_SECONDS = 3;
const codec = JSONCodec<{ data: { transaction: { id: string } } }>();

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;

export type PaymentsFigures = {
  replicas: number;
  clients: number;
  seconds: number;
  completedPerSecond: number;
  executeToCompletedP50Ms: number;
  executeToCompletedP99Ms: number;
  quoteP50Ms: number;
  executeReplyP50Ms: number;
  errors: number;
  cpuMsPerPayment: Record<string, number>;
  /** PostgreSQL commits over the measured phase per completed payment (every service, background work included). */
  commitsPerPayment: number;
  /** The account writer's lost races (corridor_account_writer_conflicts_total, every accounts process) per completed payment. */
  lostRacesPerPayment: number;
  machine: { cpus: number; loadAverage: number[] };
};

/** The account writer's lost races so far, summed over every accounts process's /metrics. */
const lostRaces = async (urls: string[]): Promise<number> => {
  let total = 0;
  for (const url of urls) {
    const text = await (await fetch(url)).text();
    for (const match of text.matchAll(/^corridor_account_writer_conflicts_total\{[^}]*\} (\d+)/gm)) total += Number(match[1]);
  }
  return total;
};

/** One payments run on a fresh stack; the bare hop is measured first on it (or read from BENCH_CEILINGS). */
export const runPayments = async (
  replicas = Number(process.env['BENCH_REPLICAS'] ?? 1),
  given?: Ceilings,
): Promise<{ figures: PaymentsFigures; ceilings: Ceilings }> => {
  console.log(
    `Starting the stack (every app as its own process, sandbox rail without delay, ${replicas} replica(s) of payments and accounts) …`,
  );
  // BENCH_CPU_PROF=<dir>: CPU profiles of the payments and accounts processes, written when they stop.
  const profile = process.env['BENCH_CPU_PROF'];
  // This Node refuses --cpu-prof in NODE_OPTIONS; bench/cpu-profile.js starts the profiler from a preload instead.
  const profiled = profile ? { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.js')}`, CPU_PROF_DIR: profile } : undefined;
  const stack = await startStack({
    env: { SANDBOX_RAIL_DELAY_MS: '0', LOG_LEVEL: 'warn' },
    ...(profiled ? { appEnv: { payments: profiled, accounts: profiled } } : {}),
  });
  const extra: ChildProcess[] = [];
  const extraLogs: string[] = [];
  const accountsMetrics = [stack.healthUrl('accounts').replace(/\/health$/, '/metrics')];
  try {
    const ceilings = given ?? (await ceilingsFor(['bareHop']));
    for (let replica = 1; replica < replicas; replica += 1) {
      for (const app of ['accounts', 'payments'] as const) {
        const healthPort = await freePort();
        if (app === 'accounts') accountsMetrics.push(`http://127.0.0.1:${healthPort}/metrics`);
        const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, `../apps/${app}/src/main.ts`)], {
          cwd: join(__dirname, '..'),
          env: { ...process.env, ...stack.env, ...stack.bus.envFor(app), ...(profiled ?? {}), HEALTH_PORT: String(healthPort) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const keep = (chunk: Buffer) => extraLogs.push(`${app}#${replica + 1} ${chunk.toString()}`);
        child.stdout?.on('data', keep);
        child.stderr?.on('data', keep);
        extra.push(child);
        for (
          let tries = 0;
          (await fetch(`http://127.0.0.1:${healthPort}/health`).then(
            (r) => r.status,
            () => 0,
          )) !== 200;
          tries += 1
        ) {
          if (tries > 300 || child.exitCode !== null)
            throw new Error(`${app} replica ${replica + 1} did not start:\n${extraLogs.join('')}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
    const platform = (await stack.createPlatform()).token as Credentials;
    const authorization = basic(platform);
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: await response.json() };
    };

    /** Setting up on a shared, loaded machine: a 5xx (a service busy or a database out of connections) is retried. */
    const setup = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      for (let attempt = 0; ; attempt += 1) {
        const reply = await call(method, path, body);
        if (reply.status < 500 || attempt >= 20) return reply;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    // One payer per client: a customer with a funded USD account and a EUR bank account.
    const newPayer = async (index: number) => {
      const customer = await setup('POST', '/customers', {
        customerType: 'INDIVIDUAL',
        fullName: `Bench payer ${index}`,
        currencies: ['USD'],
      });
      if (customer.status !== 201) throw new Error(`POST /customers: ${JSON.stringify(customer.body)}`);
      let usd: string | undefined;
      while (!usd) {
        usd = (await setup('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id)}`)).body.data?.[0]?.id;
        if (!usd) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const funded = await setup('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: 100_000_000_000 });
      if (funded.status !== 200) throw new Error(`fund: ${JSON.stringify(funded.body)}`);
      const bban = `370400440${String(index).padStart(6, '0')}000`;
      const numeric = [...`${bban}DE00`].map((character) => parseInt(character, 36).toString()).join('');
      const iban = `DE${String(98 - Number(BigInt(numeric) % 97n)).padStart(2, '0')}${bban}`;
      const euros = await setup('POST', '/customers/external-accounts', {
        customerId: customer.body.id,
        currency: 'EUR',
        accountInfo: {
          accountType: 'EUR_ACCOUNT',
          iban,
          swiftCode: 'COBADEFFXXX',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Eva Empfänger', countryOfResidence: 'DE' },
        },
      });
      if (euros.status !== 201) throw new Error(`external account: ${JSON.stringify(euros.body)}`);
      return { usd, euros: euros.body.id as string };
    };
    // Set up one payer at a time: setting up is not what is measured.
    const payers: { usd: string; euros: string }[] = [];
    for (let index = 0; index < CLIENTS; index += 1) payers.push(await newPayer(index));

    const nats = await connect(stack.bus.harness);
    const waiting = new Map<string, () => void>();
    const completedEarly = new Set<string>();
    const subscription = nats.subscribe(`${stack.subjectPrefix}.events.payments.Transaction.PaymentCompleted`);
    void (async () => {
      for await (const message of subscription) {
        const id = codec.decode(message.data).data.transaction.id;
        const resolve = waiting.get(id);
        if (resolve) resolve();
        else completedEarly.add(id);
      }
    })();
    await nats.flush();
    const completion = (transactionId: string): Promise<void> =>
      completedEarly.delete(transactionId)
        ? Promise.resolve()
        : new Promise((resolve) => waiting.set(transactionId, () => (waiting.delete(transactionId), resolve())));

    let measuring = false;
    let stopping = false;
    const latencies: number[] = [];
    const quoteLatencies: number[] = [];
    const executeLatencies: number[] = [];
    let completed = 0;
    let errors = 0;
    const client = async (payer: { usd: string; euros: string }): Promise<void> => {
      while (!stopping) {
        const quoteStarted = performance.now();
        const quoted = await call('POST', '/quotes', {
          source: { sourceType: 'ACCOUNT', accountId: payer.usd },
          destination: { destinationType: 'ACCOUNT', accountId: payer.euros },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000,
        });
        if (quoted.status !== 201) {
          errors += 1;
          continue;
        }
        const started = performance.now();
        const done = completion(quoted.body.transactionId);
        const executed = await call('POST', `/quotes/${quoted.body.id}/execute`);
        const answered = performance.now();
        if (executed.status !== 200) {
          errors += 1;
          waiting.delete(quoted.body.transactionId);
          continue;
        }
        await done;
        if (measuring) {
          latencies.push(performance.now() - started);
          quoteLatencies.push(started - quoteStarted);
          executeLatencies.push(answered - started);
          completed += 1;
        }
      }
    };

    console.log(`${CLIENTS} clients: quote + execute until COMPLETED; ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s measured …`);
    const clients = payers.map((payer) => client(payer));
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000));
    const pg = new Client({ connectionString: stack.database.url });
    await pg.connect();
    const database = new URL(stack.database.url).pathname.slice(1);
    const commits = async (): Promise<number> =>
      Number(
        (await pg.query<{ commits: string }>('SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = $1', [database]))
          .rows[0]?.commits ?? 0,
      );
    const commitsBefore = await commits();
    const lostRacesBefore = await lostRaces(accountsMetrics);
    await resetStatements(pg);
    const cpuBefore = await stackCpu(stack.subjectPrefix, pg, database);
    measuring = true;
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    measuring = false;
    const elapsed = (performance.now() - start) / 1000;
    const cpuAfter = await stackCpu(stack.subjectPrefix, pg, database);
    const commitsDuring = (await commits()) - commitsBefore;
    const lostRacesDuring = (await lostRaces(accountsMetrics)) - lostRacesBefore;
    await printStatements(pg, database, completed, 'payment');
    await pg.end();
    stopping = true;
    await Promise.all(clients);
    subscription.unsubscribe();
    await nats.close();

    const sorted = [...latencies].sort((a, b) => a - b);
    const figures: PaymentsFigures = {
      replicas,
      clients: CLIENTS,
      seconds: Math.round(elapsed * 10) / 10,
      completedPerSecond: Math.round(completed / elapsed),
      executeToCompletedP50Ms: percentile(sorted, 50),
      executeToCompletedP99Ms: percentile(sorted, 99),
      quoteP50Ms: percentile(
        [...quoteLatencies].sort((a, b) => a - b),
        50,
      ),
      executeReplyP50Ms: percentile(
        [...executeLatencies].sort((a, b) => a - b),
        50,
      ),
      errors,
      cpuMsPerPayment: cpuMsPer(cpuBefore, cpuAfter, completed),
      commitsPerPayment: Math.round((commitsDuring / Math.max(1, completed)) * 10) / 10,
      lostRacesPerPayment: Math.round((lostRacesDuring / Math.max(1, completed)) * 100) / 100,
      machine: { cpus: cpus().length, loadAverage: loadavg().map((value) => Math.round(value * 10) / 10) },
    };
    console.log(`  completed payments/s: ${figures.completedPerSecond} with ${replicas} replica(s) of payments and accounts`);
    console.log(`  execute → COMPLETED p50 ${figures.executeToCompletedP50Ms} ms, p99 ${figures.executeToCompletedP99Ms} ms`);
    console.log(`  POST /quotes p50 ${figures.quoteP50Ms} ms; POST /quotes/{id}/execute answered p50 ${figures.executeReplyP50Ms} ms`);
    console.log(
      `  CPU ms per payment: ${Object.entries(figures.cpuMsPerPayment)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')}`,
    );
    console.log(`  PostgreSQL commits per payment (every service, background work included): ${figures.commitsPerPayment}`);
    console.log(`  account writer's lost races per payment (a replica's stale memory of an account): ${figures.lostRacesPerPayment}`);
    const ledger = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    console.log(`  ledger conserved: ${JSON.stringify(ledger)}`);
    console.log(`  errors: ${errors}; load average ${figures.machine.loadAverage.join(' ')} on ${figures.machine.cpus} CPUs`);
    if (completed === 0) throw new Error(`No payment completed in ${SECONDS} s (${errors} errors).`);
    return { figures, ceilings };
  } catch (error) {
    if (extraLogs.length > 0) console.error(`--- extra replicas ---\n${extraLogs.join('').slice(-3_000)}`);
    for (const [app, lines] of Object.entries(stack.logs))
      if (lines.length > 0)
        console.error(
          `--- ${app} (last lines) ---\n${lines
            .join('')
            .split('\n')
            .filter((line) => !line.includes('Projections did not reach') && (line.includes('"level":50') || line.includes('"level":40')))
            .slice(0, 6)
            .join('\n')}`,
        );
    throw error;
  } finally {
    await Promise.all(extra.map(stopChild));
    await stack.close();
  }
};

/** The payments figures beside the bare hop, with the issue's targets. */
export const paymentsFigures = (figures: PaymentsFigures, ceilings: Ceilings, suffix = ''): Figure[] => [
  {
    label: `completed payments/s${suffix}`,
    value: figures.completedPerSecond,
    unit: 'payments/s',
    ceiling: bareHopCeiling(ceilings),
    target: { kind: 'ratio-at-least', ratio: 1 / 20, text: '≥ 1/20 of the bare hop' },
  },
  {
    label: `execute → COMPLETED p99${suffix}`,
    value: figures.executeToCompletedP99Ms,
    unit: 'ms',
    target: { kind: 'below', value: 300, text: '< 300 ms at 32 clients' },
  },
  ...(ceilings.bareHop
    ? [
        {
          label: `CPU per payment${suffix}`,
          value: figures.cpuMsPerPayment['total'] ?? 0,
          unit: 'ms',
          ceiling: { label: 'bare hop CPU/request', value: ceilings.bareHop.cpuMsPerRequest.server, unit: 'ms' },
        },
      ]
    : []),
  { label: `PostgreSQL commits per payment${suffix}`, value: figures.commitsPerPayment, unit: 'commits' },
];

const main = async (): Promise<void> => {
  const { figures, ceilings } = await runPayments();
  writeFileSync(join(__dirname, 'last-run-payments.json'), JSON.stringify(figures, null, 2));
  reportBench('payments', ceilings, paymentsFigures(figures, ceilings), figures);
};

if (require.main === module)
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
