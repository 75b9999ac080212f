import autocannon from 'autocannon';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { waitUntil } from '@corridor/testing';
import { basic } from '../tests/support/api';
import { type Stack, startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { bareHopCeiling, reportBench } from './report';
import { printStatements, resetStatements } from './pg-statements';
import { cpuMsPer, stackCpu } from './stack-cpu';

// The customers paths of issues 2 and 17 at 32 connections against every app running here, beside
// the bare hop measured first on the quiet stack (bench/ceilings.ts):
//   - GET /customers/{id};
//   - POST /customers, counted until the last customer's accounts are open and its webhooks have
//     reached a local receiver (the platform's webhook endpoint), not only until the HTTP answer.
//   npm run bench                 (BENCH_SECONDS=10 by default; BENCH_CPU_PROF=<dir> profiles the POST phase)

const CONNECTIONS = 32;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);

type Figures = { requestsPerSecond: number; p50Ms: number; p99Ms: number; ok: number; non2xx: number; errors: number };

const measure = async (title: string, options: autocannon.Options): Promise<Figures> => {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const figures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  console.log(
    `${title.padEnd(44)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ` +
      `ms  non-2xx ${figures.non2xx}  errors ${figures.errors}`,
  );
  return figures;
};

const newCustomerBody = JSON.stringify({ customerType: 'INDIVIDUAL', region: 'US', fullName: 'Bench Person' });

const runReal = async (stack: Stack) => {
  let webhooks = 0;
  const types = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const type = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type;
      types.set(type, (types.get(type) ?? 0) + 1);
      if (type !== 'TEST') webhooks += 1;
      response.writeHead(200).end();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
  try {
    const { token } = await stack.createPlatform();
    const authorization = basic({ clientId: token.clientId, clientSecret: token.clientSecret! });
    const headers = { authorization, 'content-type': 'application/json' };
    const configured = await fetch(`${stack.baseUrl}/config`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ webhookEndpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }),
    });
    if (configured.status !== 200) throw new Error(`PATCH /config answered ${configured.status}: ${await configured.text()}`);
    const accounts = async () =>
      Number((await pg.query<{ count: string }>('SELECT count(*) FROM accounts.internal_accounts')).rows[0]!.count);

    // What one customer brings about: its accounts and its webhooks, counted once they stop coming.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    webhooks = 0;
    types.clear();
    const accountsAtFirst = await accounts();
    const created = await fetch(`${stack.baseUrl}/customers`, { method: 'POST', headers, body: newCustomerBody });
    if (created.status !== 201) throw new Error(`POST /customers answered ${created.status}: ${await created.text()}`);
    const customerId = ((await created.json()) as { id: string }).id;
    await waitUntil("the first customer's accounts", async () => (await accounts()) > accountsAtFirst, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const accountsPerCustomer = (await accounts()) - accountsAtFirst;
    const webhooksPerCustomer = webhooks;
    console.log(
      `each customer opens ${accountsPerCustomer} account(s) and sends ${webhooksPerCustomer} ` +
        `webhook(s): ${JSON.stringify(Object.fromEntries(types))}`,
    );
    types.clear();

    await measure('warm-up GET', { url: `${stack.baseUrl}/customers/${customerId}`, headers, duration: 3 });
    const database = new URL(stack.database.url).pathname.slice(1);
    const cpuBeforeGet = await stackCpu(stack.subjectPrefix, pg, database);
    const get = await measure('GET /customers/{id} (all apps)', { url: `${stack.baseUrl}/customers/${customerId}`, headers });
    // Beside the bare hop's CPU per request: what the customers service and PostgreSQL add to a read.
    const cpuMsPerGet = cpuMsPer(cpuBeforeGet, await stackCpu(stack.subjectPrefix, pg, database), get.ok);
    console.log(
      `  CPU ms per GET: ${Object.entries(cpuMsPerGet)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')}`,
    );

    const accountsBefore = await accounts();
    webhooks = 0;
    const cpuBefore = await stackCpu(stack.subjectPrefix, pg, database);
    // Commits are what a create costs PostgreSQL most (each one a WAL flush), and unlike rates they do not depend on the load.
    const commits = async () =>
      Number(
        (await pg.query<{ commits: string }>('SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = $1', [database]))
          .rows[0]?.commits ?? 0,
      );
    const commitsBefore = await commits();
    await resetStatements(pg);
    // Row writes by table: where the commits of a create go (read models, checkpoints, outboxes, deliveries).
    const tableWrites = async () =>
      new Map(
        (
          await pg.query<{ name: string; writes: string }>(
            "SELECT schemaname || '.' || relname AS name, (n_tup_ins + n_tup_upd + n_tup_del)::text AS writes FROM pg_stat_user_tables",
          )
        ).rows.map((row) => [row.name, Number(row.writes)]),
      );
    const writesBefore = await tableWrites();
    const customersHead = (await pg.query<{ head: string }>('SELECT coalesce(max(global_position), 0)::text AS head FROM customers.events'))
      .rows[0]!.head;
    if (profileDir) for (const app of PROFILED) process.kill(stack.pid(app)!, 'SIGUSR2');
    const started = performance.now();
    const post = await measure('POST /customers (all apps, HTTP answers)', {
      url: `${stack.baseUrl}/customers`,
      method: 'POST',
      headers,
      body: newCustomerBody,
    });
    const answered = performance.now();
    if (post.ok === 0)
      throw new Error(`No POST /customers was answered within the ${SECONDS} s phase (machine overloaded? raise BENCH_SECONDS).`);
    const wanted = { accounts: accountsBefore + post.ok * accountsPerCustomer, webhooks: post.ok * webhooksPerCustomer };
    await waitUntil(
      `${post.ok} customers' accounts and webhooks`,
      async () => (await accounts()) >= wanted.accounts && webhooks >= wanted.webhooks,
      180_000,
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message} Accounts ${await accounts()} of ${wanted.accounts}, webhooks ${webhooks} ` +
          `of ${wanted.webhooks}: ${JSON.stringify(Object.fromEntries(types))}`,
      );
    });
    const settled = performance.now();
    if (profileDir) for (const app of PROFILED) process.kill(stack.pid(app)!, 'SIGUSR2');
    const cpuMsPerCustomer = cpuMsPer(cpuBefore, await stackCpu(stack.subjectPrefix, pg, database), post.ok);
    await printStatements(pg, database, post.ok, 'customer');
    // The statistics reach pg_stat_database within about a second of a commit.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const commitsPerCustomer = Math.round((((await commits()) - commitsBefore) / Math.max(1, post.ok)) * 100) / 100;
    // The customers service's own appends (claims and customers): one transaction id per commit.
    const appendCommits = Number(
      (
        await pg.query<{ commits: string }>(
          'SELECT count(DISTINCT transaction_id)::text AS commits FROM customers.events WHERE global_position > $1',
          [customersHead],
        )
      ).rows[0]!.commits,
    );
    const appendCommitsPerCustomer = Math.round((appendCommits / Math.max(1, post.ok)) * 100) / 100;
    const rowWritesPerCustomer = Object.fromEntries(
      [...(await tableWrites())]
        .map(([name, writes]) => [name, Math.round(((writes - (writesBefore.get(name) ?? 0)) / Math.max(1, post.ok)) * 100) / 100] as const)
        .filter(([, perCustomer]) => perCustomer >= 0.05)
        .sort((a, b) => b[1] - a[1]),
    );
    const complete = {
      customers: post.ok,
      seconds: Math.round((settled - started) / 100) / 10,
      catchUpSeconds: Math.round((settled - answered) / 100) / 10,
      customersPerSecond: Math.round(post.ok / ((settled - started) / 1000)),
      accountsPerCustomer,
      webhooksPerCustomer,
      cpuMsPerCustomer,
      commitsPerCustomer,
      appendCommitsPerCustomer,
      rowWritesPerCustomer,
    };
    console.log(
      `POST /customers until the last account and webhook exist: ${complete.customersPerSecond} customers/s (${complete.customers} ` +
        `in ${complete.seconds} s, ${complete.catchUpSeconds} s after the last answer)`,
    );
    console.log(
      `  PostgreSQL commits per customer (every service of the stack, background work included): ${commitsPerCustomer}; customers' ` +
        `event appends: ${appendCommitsPerCustomer} commits per customer`,
    );
    console.log(
      `  row writes per customer by table: ${Object.entries(rowWritesPerCustomer)
        .map(([name, writes]) => `${name} ${writes}`)
        .join(', ')}`,
    );
    console.log(
      `  CPU ms per customer: ${Object.entries(cpuMsPerCustomer)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')}`,
    );
    return { get: { ...get, cpuMsPerGet }, post, complete };
  } finally {
    await pg.end();
    await new Promise((resolve) => receiver.close(resolve));
  }
};

/** BENCH_CPU_PROF=<dir>: CPU profiles of these apps over the POST phase and its catch-up only (bench/cpu-profile.js). */
const PROFILED = ['customers', 'accounts', 'webhooks', 'gateway'] as const;
const profileDir = process.env['BENCH_CPU_PROF'];

const main = async () => {
  const profiled = profileDir
    ? { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.js')}`, CPU_PROF_DIR: profileDir, CPU_PROF_ON_SIGNAL: '1' }
    : undefined;
  const stack = await startStack({
    env: { LOG_LEVEL: 'warn' },
    ...(profiled ? { appEnv: Object.fromEntries(PROFILED.map((app) => [app, profiled])) } : {}),
  });
  try {
    const ceilings = await ceilingsFor(['bareHop']);
    console.log(`\nautocannon, ${CONNECTIONS} connections, ${SECONDS} s per run\n`);
    const real = await runReal(stack);
    const hop = bareHopCeiling(ceilings);
    const report = reportBench(
      'customers (npm run bench)',
      ceilings,
      [
        {
          label: 'GET /customers/{id}',
          value: real.get.requestsPerSecond,
          unit: 'req/s',
          ceiling: hop,
          target: { kind: 'ratio-at-least', ratio: 0.6, text: '≥ 60 % of the bare hop' },
        },
        {
          label: 'POST /customers until accounts + webhooks',
          value: real.complete.customersPerSecond,
          unit: 'customers/s',
          ceiling: hop,
          target: { kind: 'ratio-at-least', ratio: 1 / 6, text: '≥ 1/6 of the bare hop' },
        },
        { label: 'POST /customers HTTP answers', value: real.post.requestsPerSecond, unit: 'req/s', ceiling: hop },
        { label: 'POST /customers p99', value: real.post.p99Ms, unit: 'ms', target: { kind: 'below', value: 150, text: '< 150 ms' } },
        { label: 'PostgreSQL commits per customer', value: real.complete.commitsPerCustomer, unit: 'commits' },
        { label: 'customers event-append commits per customer', value: real.complete.appendCommitsPerCustomer, unit: 'commits' },
        {
          label: 'CPU per GET (all processes)',
          value: real.get.cpuMsPerGet['total'] ?? 0,
          unit: 'ms',
          ...(ceilings.bareHop
            ? { ceiling: { label: 'bare hop CPU/request', value: ceilings.bareHop.cpuMsPerRequest.server, unit: 'ms' } }
            : {}),
        },
        {
          label: 'CPU per customer (all processes)',
          value: real.complete.cpuMsPerCustomer['total'] ?? 0,
          unit: 'ms',
          ...(ceilings.bareHop
            ? { ceiling: { label: 'bare hop CPU/request', value: ceilings.bareHop.cpuMsPerRequest.server, unit: 'ms' } }
            : {}),
        },
      ],
      { connections: CONNECTIONS, seconds: SECONDS, ...real },
    );
    if (real.get.errors + real.get.non2xx + real.post.errors + real.post.non2xx > 0)
      throw new Error('Some requests failed (non-2xx or errors above).');
    writeFileSync(join(__dirname, 'last-run.json'), `${JSON.stringify(report, null, 2)}\n`);
  } catch (error) {
    for (const [app, lines] of Object.entries(stack.logs))
      if (lines.length > 0) console.error(`--- ${app} (last output) ---\n${lines.join('').slice(-2_000)}`);
    throw error;
  } finally {
    await stack.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
