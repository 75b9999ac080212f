import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { assertLedgerConserved } from '@corridor/testing';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { bareHopCeiling, reportBench } from './report';
import { printStatements, resetStatements } from './pg-statements';
import { cpuMsPer, stackCpu } from './stack-cpu';

// Incoming payments (issue 6): every app as its own process on a fresh database, a sandbox
// platform whose webhook endpoint is a local receiver that approves every INCOMING_PAYMENT.PENDING
// at once (200), and BENCH_INCOMING_CONCURRENCY callers posting POST /sandbox/uma/receive in a
// closed loop for BENCH_SECONDS. A payment counts when its INCOMING_PAYMENT.COMPLETED webhook
// arrives (the transaction is COMPLETED and the customer credited before that event exists), so
// the path measured is: HTTP → gateway → payments (customer, deposit account and rate look-ups,
// append, read model) → outbox → JetStream → webhooks (plan, sign, POST the approval hook) → the
// receiver's 200 → webhooks reports it to payments → ledger credit → COMPLETED → outbox →
// webhooks → COMPLETED webhook.
//   npm run bench:incoming   (BENCH_SECONDS=10, BENCH_INCOMING_CONCURRENCY=32, BENCH_INCOMING_CUSTOMERS=50, BENCH_CPU_PROF=<dir>,
//                             BENCH_PG_STATEMENTS=1)

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONCURRENCY = Number(process.env['BENCH_INCOMING_CONCURRENCY'] ?? 32);
const CUSTOMERS = Number(process.env['BENCH_INCOMING_CUSTOMERS'] ?? 50);
const DRAIN_MS = 60_000;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

const main = async (): Promise<void> => {
  // BENCH_CPU_PROF=<dir>: CPU profiles of the payments, accounts and webhooks processes, written when they stop.
  const profile = process.env['BENCH_CPU_PROF'];
  // This Node refuses --cpu-prof in NODE_OPTIONS; bench/cpu-profile.js starts the profiler from a preload instead.
  const profiled = profile ? { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.js')}`, CPU_PROF_DIR: profile } : undefined;
  const stack = await startStack({
    env: { LOG_LEVEL: 'error' },
    ...(profiled ? { appEnv: { payments: profiled, accounts: profiled, webhooks: profiled } } : {}),
  });
  const started = new Map<string, number>();
  const completedAt = new Map<string, number>();
  let failed = 0;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data?: { id: string } };
      if (body.type === 'INCOMING_PAYMENT.COMPLETED' && body.data) completedAt.set(body.data.id, performance.now());
      if (body.type === 'INCOMING_PAYMENT.FAILED') failed += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  try {
    // The bare hop, first, on the quiet stack (or from bench:all).
    const ceilings = await ceilingsFor(['bareHop']);
    const { token } = await stack.createPlatform();
    const auth = `Basic ${Buffer.from(`${token.clientId}:${token.clientSecret}`).toString('base64')}`;
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const response = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: { authorization: auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    };
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
    if ((await call('PATCH', '/config', { webhookEndpoint: url })).status !== 200) throw new Error('Could not set the webhook endpoint.');
    const customers: string[] = [];
    for (let index = 0; index < CUSTOMERS; index += 1) {
      const created = await call('POST', '/customers', {
        customerType: 'INDIVIDUAL',
        fullName: `Bench payee ${index}`,
        currencies: ['USD'],
      });
      if (created.status !== 201) throw new Error(`POST /customers answered ${created.status}: ${JSON.stringify(created.body)}`);
      customers.push(created.body.id as string);
    }
    // Accounts are opened from the customers' events; wait until each has its USD account.
    for (const customerId of customers) {
      for (;;) {
        const list = await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`);
        if ((list.body?.data ?? []).length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    // Warm-up: one payment through the whole path.
    const warm = await call('POST', '/sandbox/uma/receive', {
      senderUmaAddress: '$success.usd@sandbox.uma.money',
      customerId: customers[0],
      receivingCurrencyCode: 'USD',
      receivingCurrencyAmount: 1000,
    });
    if (warm.status !== 200) throw new Error(`Warm-up receive answered ${warm.status}: ${JSON.stringify(warm.body)}`);
    for (let waited = 0; !completedAt.has(warm.body.id) && waited < 30_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));
    completedAt.clear();

    const pg = new Client({ connectionString: stack.database.url });
    await pg.connect();
    const database = new URL(stack.database.url).pathname.slice(1);
    const cpuBefore = await stackCpu(stack.subjectPrefix, pg, database);
    await resetStatements(pg);
    const httpLatencies: number[] = [];
    let errors = 0;
    const errorKinds = new Map<string, number>();
    let sent = 0;
    const begin = performance.now();
    const stopAt = begin + SECONDS * 1000;
    const worker = async (index: number): Promise<void> => {
      for (let round = 0; performance.now() < stopAt; round += 1) {
        const customerId = customers[(index + round * CONCURRENCY) % customers.length];
        const at = performance.now();
        const reply = await call('POST', '/sandbox/uma/receive', {
          senderUmaAddress: '$success.usd@sandbox.uma.money',
          customerId,
          receivingCurrencyCode: 'USD',
          receivingCurrencyAmount: 1000 + (round % 100),
        });
        httpLatencies.push(performance.now() - at);
        if (reply.status !== 200) {
          errors += 1;
          const kind = `${reply.status} ${String(reply.body?.code ?? '')}`;
          errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
          continue;
        }
        sent += 1;
        started.set(reply.body.id as string, at);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_unused, index) => worker(index)));
    const sendingEnded = performance.now();
    const drainUntil = sendingEnded + DRAIN_MS;
    while ([...started.keys()].some((id) => !completedAt.has(id)) && failed === 0 && performance.now() < drainUntil)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuAfter = await stackCpu(stack.subjectPrefix, pg, database);
    await printStatements(pg, database, completedAt.size, 'incoming payment');
    await pg.end();
    const ends = [...started.keys()].map((id) => completedAt.get(id)).filter((value): value is number => value !== undefined);
    const endToEnd = [...started.entries()].filter(([id]) => completedAt.has(id)).map(([id, at]) => (completedAt.get(id) as number) - at);
    const lastCompletion = Math.max(...ends);
    const completedWithinWindow = ends.filter((end) => end <= stopAt).length;
    const ledger = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    const result = {
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))) },
      seconds: SECONDS,
      concurrency: CONCURRENCY,
      customers: CUSTOMERS,
      receivesAccepted: sent,
      receiveErrors: errors,
      receiveErrorKinds: Object.fromEntries(errorKinds),
      completed: ends.length,
      failedWebhooks: failed,
      acceptedPerSecond: Number((sent / ((sendingEnded - begin) / 1000)).toFixed(1)),
      completedPerSecond: Number((ends.length / ((lastCompletion - begin) / 1000)).toFixed(1)),
      completedWithinWindowPerSecond: Number((completedWithinWindow / SECONDS).toFixed(1)),
      httpReceiveMs: { p50: Number(percentile(httpLatencies, 50).toFixed(1)), p99: Number(percentile(httpLatencies, 99).toFixed(1)) },
      toCompletedMs: {
        p50: Number(percentile(endToEnd, 50).toFixed(1)),
        p99: Number(percentile(endToEnd, 99).toFixed(1)),
        max: Number(Math.max(...endToEnd).toFixed(1)),
      },
      cpuMsPerPayment: cpuMsPer(cpuBefore, cpuAfter, ends.length),
      ledger,
    };
    console.log(JSON.stringify(result, null, 2));
    if (errors > 0 || failed > 0) {
      for (const [app, lines] of Object.entries(stack.logs)) {
        const text = lines.join('');
        if (text.trim()) console.log(`--- ${app} (last output) ---\n${text.slice(-4_000)}`);
      }
    }
    mkdirSync(join(__dirname, '../tmp'), { recursive: true });
    writeFileSync(join(__dirname, '../tmp/bench-incoming-last-run.json'), JSON.stringify(result, null, 2));
    reportBench(
      'incoming UMA payments',
      ceilings,
      [
        {
          label: 'incoming payments completed/s',
          value: result.completedPerSecond,
          unit: 'payments/s',
          ceiling: bareHopCeiling(ceilings),
          target: { kind: 'ratio-at-least', ratio: 1 / 20, text: '≥ 1/20 of the bare hop' },
        },
        {
          label: 'receive → COMPLETED p99',
          value: result.toCompletedMs.p99,
          unit: 'ms',
          target: { kind: 'below', value: 300, text: '< 300 ms' },
        },
        {
          label: 'CPU per incoming payment',
          value: result.cpuMsPerPayment['total'] ?? 0,
          unit: 'ms',
          ...(ceilings.bareHop
            ? { ceiling: { label: 'bare hop CPU/request', value: ceilings.bareHop.cpuMsPerRequest.server, unit: 'ms' } }
            : {}),
        },
      ],
      result,
    );
    if (ends.length === 0) throw new Error('No incoming payment completed.');
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
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
