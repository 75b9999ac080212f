import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { NestFactory } from '@nestjs/core';
import { connect, JSONCodec } from 'nats';
import { Client } from 'pg';
import { newUuid, type RequestContext, subjects } from '@corridor/contracts';
import { MessagingModule, ServiceClient } from '@corridor/messaging';
import { assertLedgerConserved } from '@corridor/testing';
import { basic, type Credentials } from '../tests/support/api';
import { freePort, startStack } from '../tests/support/stack';
import { ceilingsFor, stopChild } from './ceilings';
import { benchClient } from './http';
import { bareHopCeiling, reportBench } from './report';
import { cpuMsPer, stackCpu } from './stack-cpu';

// One hot internal account (issue 13, item 6): every app as its own process on a fresh database,
// 32 clients each looping POST /transfer-out (own Idempotency-Key, 1 minor unit, sandbox success
// suffix) on ONE funded internal account, each waiting for the transfer's TransferCompleted or
// TransferFailed integration event on JetStream's subject before its next request. Reports
// completed/s, p50/p99 of the HTTP answer and of request → COMPLETED, and every non-201 by status
// (a 5xx is a failure of the bench: the process exits 1).
//
// The ceiling, in the same run right after: the ledger's own work for a transfer-out on one hot
// account — hold → settle pairs over NATS (ServiceClient straight to the stack's accounts
// service, no HTTP, no payments service), 32 callers on another funded account. The echo ceiling
// of bench/run.ts answers customers' subjects only, so it cannot stand in for a transfer.
//   npm run bench:hot-account     (BENCH_SECONDS=20, BENCH_CLIENTS=32, BENCH_REPLICAS=1)
// BENCH_REPLICAS=2 starts a second accounts and a second payments process on the same database and
// subject prefix (NATS spreads requests over a queue group), so two writers share the hot account.

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 20);
const CEILING_SECONDS = Number(process.env['BENCH_CEILING_SECONDS'] ?? 10);
const CLIENTS = Number(process.env['BENCH_CLIENTS'] ?? 32);
const REPLICAS = Number(process.env['BENCH_REPLICAS'] ?? 1);
const WARM_UP_SECONDS = 3;
const FUNDING = 1_000_000_000;
const codec = JSONCodec<{ data: { transaction: { id: string; status: string } } }>();

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 10) / 10;
const sortedOf = (values: number[]): number[] => [...values].sort((a, b) => a - b);
const load = (): number[] => loadavg().map((value) => Math.round(value * 10) / 10);

const main = async (): Promise<void> => {
  console.log('Starting the stack (every app as its own process) …');
  const stack = await startStack({ env: { LOG_LEVEL: 'warn' } });
  const loadAtStart = load();
  // Taken before the load starts: on a shared server, a connection opened later may be refused.
  const pg = new Client({ connectionString: stack.database.url });
  const database = new URL(stack.database.url).pathname.slice(1);
  const replicas: ChildProcess[] = [];
  const replicaLogs: string[] = [];
  try {
    await pg.connect();
    // The shared ceilings, first, on the quiet stack (or from bench:all).
    const ceilings = await ceilingsFor(['bareHop', 'append'], stack.database.url);
    for (let replica = 1; replica < REPLICAS; replica += 1) {
      for (const app of ['accounts', 'payments'] as const) {
        const healthPort = await freePort();
        const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, `../apps/${app}/src/main.ts`)], {
          cwd: join(__dirname, '..'),
          env: { ...process.env, ...stack.env, ...stack.bus.envFor(app), HEALTH_PORT: String(healthPort) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const keep = (chunk: Buffer) => replicaLogs.push(`${app}#${replica + 1} ${chunk.toString()}`);
        child.stdout?.on('data', keep);
        child.stderr?.on('data', keep);
        replicas.push(child);
        for (
          let tries = 0;
          (await fetch(`http://127.0.0.1:${healthPort}/health`).then(
            (r) => r.status,
            () => 0,
          )) === 0;
          tries += 1
        ) {
          if (tries > 300) throw new Error(`${app} replica did not start:\n${replicaLogs.join('')}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    }
    if (REPLICAS > 1) console.log(`${REPLICAS} replicas of accounts and payments`);
    const { token, platformId } = await stack.createPlatform();
    const authorization = basic(token as Credentials);
    const { call, setup, firstInternalAccount } = benchClient(stack.baseUrl, authorization);
    /** A customer with a funded USD internal account and a USD ACH account ending 001 (the sandbox rail completes it). */
    const newHotAccount = async (index: number): Promise<{ usd: string; bank: string }> => {
      const customer = await setup('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Hot ${index}`, currencies: ['USD'] });
      const usd = await firstInternalAccount(customer.body.id);
      await setup('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: FUNDING });
      const bank = await setup('POST', '/customers/external-accounts', {
        customerId: customer.body.id,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: `6${String(index).padStart(7, '0')}0001`,
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
        },
      });
      return { usd, bank: bank.body.id as string };
    };
    const hot = await newHotAccount(1);
    const ceilingAccount = await newHotAccount(2);

    // Completions arrive as the transaction's integration events, so waiting adds no polling load.
    const nats = await connect(stack.bus.harness);
    const waiting = new Map<string, (status: string) => void>();
    const early = new Map<string, string>();
    const subscription = nats.subscribe(`${stack.subjectPrefix}.events.payments.Transaction.>`);
    void (async () => {
      for await (const message of subscription) {
        if (!message.subject.endsWith('.TransferCompleted') && !message.subject.endsWith('.TransferFailed')) continue;
        const { id, status } = codec.decode(message.data).data.transaction;
        const resolve = waiting.get(id);
        if (resolve) resolve(status);
        else early.set(id, status);
      }
    })();
    await nats.flush();
    const terminal = (id: string): Promise<string> => {
      const status = early.get(id);
      if (status !== undefined) {
        early.delete(id);
        return Promise.resolve(status);
      }
      return new Promise((resolve) => waiting.set(id, (reached) => (waiting.delete(id), resolve(reached))));
    };

    let measuring = false;
    let stopping = false;
    const httpMs: number[] = [];
    const completedMs: number[] = [];
    let completed = 0;
    let failed = 0;
    const refusals = new Map<string, number>();
    const serverErrors: string[] = [];
    const client = async (): Promise<void> => {
      while (!stopping) {
        const started = performance.now();
        const reply = await call(
          'POST',
          '/transfer-out',
          { source: { accountId: hot.usd }, destination: { accountId: hot.bank }, amount: 1 },
          { 'Idempotency-Key': randomUUID() },
        );
        const answered = performance.now();
        if (reply.status !== 201) {
          const kind = `${reply.status} ${reply.body?.code ?? ''}`;
          if (measuring) refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
          if (reply.status >= 500) serverErrors.push(`${kind}: ${reply.body?.message ?? ''}`);
          continue;
        }
        const status = await terminal(reply.body.id as string);
        if (!measuring) continue;
        httpMs.push(answered - started);
        completedMs.push(performance.now() - started);
        if (status === 'COMPLETED') completed += 1;
        else failed += 1;
      }
    };

    console.log(
      `${CLIENTS} clients: POST /transfer-out on one account until terminal; ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s measured …`,
    );
    const clients = Array.from({ length: CLIENTS }, () => client());
    await new Promise((resolve) => setTimeout(resolve, WARM_UP_SECONDS * 1000));
    const cpuBefore = await stackCpu(stack.subjectPrefix, pg, database);
    measuring = true;
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    measuring = false;
    const elapsed = (performance.now() - start) / 1000;
    const cpuAfter = await stackCpu(stack.subjectPrefix, pg, database);
    stopping = true;
    await Promise.all(clients);
    subscription.unsubscribe();
    await nats.close();

    // The ceiling: hold → settle pairs over NATS on one other hot account, same number of callers.
    const messaging = await NestFactory.createApplicationContext(
      MessagingModule.forRoot({
        natsUrl: stack.bus.url,
        natsAuth: stack.bus.harness,
        subjectPrefix: stack.subjectPrefix,
        name: 'bench-hot-account',
      }),
      { logger: ['error'] },
    );
    await messaging.init();
    const service = messaging.get(ServiceClient);
    const context = (): RequestContext => {
      const requestId = newUuid();
      return { platformId, actor: { kind: 'system', name: 'bench' }, requestId, correlationId: requestId };
    };
    const ledger = (subject: string, data: unknown) => service.request(subject, data, { context: context(), timeoutMs: 10_000 });
    const pairMs: number[] = [];
    let pairs = 0;
    let ceilingErrors = 0;
    const ceilingUntil = performance.now() + CEILING_SECONDS * 1000;
    const ceilingStart = performance.now();
    const ceilingCpuBefore = await stackCpu(stack.subjectPrefix, pg, database);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < ceilingUntil) {
          const n = randomUUID();
          const started = performance.now();
          try {
            await ledger(subjects.accounts.ledger.hold, {
              accountId: ceilingAccount.usd,
              operationId: `hold:${n}`,
              holdId: `Hold:${n}`,
              amount: '1',
              currency: 'USD',
              cause: { kind: 'TRANSFER', id: `Transaction:${n}` },
            });
            await ledger(subjects.accounts.ledger.settle, {
              accountId: ceilingAccount.usd,
              operationId: `settle:${n}`,
              holdId: `Hold:${n}`,
            });
            pairMs.push(performance.now() - started);
            pairs += 1;
          } catch {
            ceilingErrors += 1;
          }
        }
      }),
    );
    const ceilingElapsed = (performance.now() - ceilingStart) / 1000;
    const ceilingCpuAfter = await stackCpu(stack.subjectPrefix, pg, database);
    await messaging.close();

    const figures = {
      measuredAt: new Date().toISOString(),
      clients: CLIENTS,
      replicas: REPLICAS,
      seconds: Math.round(elapsed * 10) / 10,
      completedPerSecond: Math.round((completed / elapsed) * 10) / 10,
      completed,
      failed,
      httpP50Ms: percentile(sortedOf(httpMs), 50),
      httpP99Ms: percentile(sortedOf(httpMs), 99),
      requestToCompletedP50Ms: percentile(sortedOf(completedMs), 50),
      requestToCompletedP99Ms: percentile(sortedOf(completedMs), 99),
      non201: Object.fromEntries(refusals),
      serverErrors: serverErrors.length,
      cpuMsPerTransfer: cpuMsPer(cpuBefore, cpuAfter, completed + failed),
      ceiling: {
        what: 'ledger hold → settle pairs over NATS on one hot account (accounts service only, no HTTP, no payments)',
        seconds: Math.round(ceilingElapsed * 10) / 10,
        pairsPerSecond: Math.round((pairs / ceilingElapsed) * 10) / 10,
        pairP50Ms: percentile(sortedOf(pairMs), 50),
        pairP99Ms: percentile(sortedOf(pairMs), 99),
        errors: ceilingErrors,
        cpuMsPerPair: cpuMsPer(ceilingCpuBefore, ceilingCpuAfter, pairs),
      },
      machine: { cpus: cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: load() },
    };
    const share = Math.round((figures.completedPerSecond / Math.max(1, figures.ceiling.pairsPerSecond)) * 100);
    console.log(
      `  transfer-outs completed/s: ${figures.completedPerSecond} (${completed} COMPLETED, ${failed} FAILED in ${figures.seconds} s)`,
    );
    console.log(
      `  HTTP answer p50 ${figures.httpP50Ms} ms, p99 ${figures.httpP99Ms} ms; request → COMPLETED ` +
        `p50 ${figures.requestToCompletedP50Ms} ms, p99 ${figures.requestToCompletedP99Ms} ms`,
    );
    console.log(`  non-201 answers: ${JSON.stringify(figures.non201)}; 5xx: ${figures.serverErrors}`);
    console.log(
      `  CPU ms per transfer: ${Object.entries(figures.cpuMsPerTransfer)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')}`,
    );
    console.log(
      `  ceiling (${figures.ceiling.what}): ${figures.ceiling.pairsPerSecond} pairs/s, p50 ${figures.ceiling.pairP50Ms} ms, ` +
        `p99 ${figures.ceiling.pairP99Ms} ms, errors ${figures.ceiling.errors}; transfers reach ${share} % of it`,
    );
    console.log(
      `  CPU ms per ceiling pair: ${Object.entries(figures.ceiling.cpuMsPerPair)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')}`,
    );
    const conserved = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    console.log(`  ledger conserved: ${JSON.stringify(conserved)}`);
    console.log(
      `  load average ${loadAtStart.join(' ')} at start, ${figures.machine.loadAverageAtEnd.join(' ')} at end, ` +
        `on ${figures.machine.cpus} CPUs`,
    );
    writeFileSync(
      join(__dirname, 'last-run-hot-account.json'),
      `${JSON.stringify({ ...figures, shareOfCeilingPercent: share }, null, 2)}\n`,
    );
    reportBench(
      `one hot internal account (${REPLICAS} replica(s))`,
      ceilings,
      [
        { label: 'transfer-outs completed/s', value: figures.completedPerSecond, unit: 'transfers/s', ceiling: bareHopCeiling(ceilings) },
        {
          label: 'transfer-outs completed/s',
          value: figures.completedPerSecond,
          unit: 'transfers/s',
          ceiling: { label: 'hold+settle pairs on one account', value: figures.ceiling.pairsPerSecond, unit: 'pairs/s' },
        },
        ...(ceilings.append
          ? [
              {
                label: 'transfer-outs completed/s',
                value: figures.completedPerSecond,
                unit: 'transfers/s',
                ceiling: { label: 'bare append, 1 writer', value: ceilings.append.oneWriter.perSecond, unit: 'appends/s' },
              },
            ]
          : []),
        { label: 'request → COMPLETED p99', value: figures.requestToCompletedP99Ms, unit: 'ms' },
      ],
      { ...figures, shareOfCeilingPercent: share },
    );
    if (completed === 0) throw new Error('No transfer-out completed.');
    if (serverErrors.length > 0)
      throw new Error(`${serverErrors.length} transfer-outs answered 5xx, first: ${serverErrors.slice(0, 3).join(' | ')}`);
  } catch (error) {
    // Warnings and errors by process and cause (the message of the error, else of the line), most frequent first.
    const causes = new Map<string, number>();
    const sources: [string, string[]][] = [...Object.entries(stack.logs), ['replicas', replicaLogs]];
    for (const [app, lines] of sources) {
      for (const line of lines.join('').split('\n')) {
        if (!line.includes('"level":50') && !line.includes('"level":40')) continue;
        const cause =
          /"err":\{"type":"[^"]*","message":"([^"]{0,120})/.exec(line)?.[1] ?? /"msg":"([^"]{0,120})/.exec(line)?.[1] ?? line.slice(0, 120);
        const key = `${app}: ${cause}`;
        causes.set(key, (causes.get(key) ?? 0) + 1);
      }
    }
    for (const [cause, count] of [...causes].sort((a, b) => b[1] - a[1]).slice(0, 12))
      console.error(`  ${String(count).padStart(5)} × ${cause}`);
    throw error;
  } finally {
    // The run's figures are already out; a connection the server dropped has nothing left to close.
    await pg.end().catch(() => undefined);
    await Promise.all(replicas.map(stopChild));
    await stack.close();
  }
};

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
