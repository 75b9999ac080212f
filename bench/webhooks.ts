import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { newId, subjects } from '@corridor/contracts';
import { publishEvent } from '@corridor/messaging';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { reportBench } from './report';

// Webhook delivery (issue 4): the webhooks service as its own process on a fresh database,
// integration events published to JetStream, the resource rendered over NATS by a responder
// that answers at once (standing in for accounts' render-at), and a local receiver answering
// 200 at once. Measures deliveries/s of a burst and, at a steady offered rate, the latency from
// the event's publication (its occurredAt, carried as the webhook timestamp) to its receipt, and
// the webhooks process's CPU per webhook in each phase (steadier than rates on a shared machine).
//   npm run bench:webhooks          (BENCH_WEBHOOKS_BURST=5000, BENCH_WEBHOOKS_RATE=500, BENCH_SECONDS=10)

const BURST = Number(process.env['BENCH_WEBHOOKS_BURST'] ?? 5_000);
const RATE = Number(process.env['BENCH_WEBHOOKS_RATE'] ?? 500);
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const ACCOUNTS = 200;
const codec = JSONCodec();

/** CPU seconds the webhooks process has used so far (its Prometheus process_cpu_seconds_total). */
const webhooksCpuSeconds = async (metricsUrl: string): Promise<number> => {
  const text = await (await fetch(metricsUrl)).text();
  const match = /^process_cpu_seconds_total (\S+)$/m.exec(text);
  if (!match) throw new Error(`No process_cpu_seconds_total at ${metricsUrl}.`);
  return Number(match[1]);
};

/**
 * CPU seconds used so far by the PostgreSQL backends serving the bench's database (read from /proc,
 * so only when PostgreSQL runs on this machine; null otherwise). Backends that end within a phase
 * take their CPU with them, so this is a floor; the service's pool keeps its connections while busy.
 */
const postgresCpuSeconds = async (client: Client, database: string): Promise<number | null> => {
  const pids = (
    await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database])
  ).rows.map((row) => row.pid);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return null;
    }
  }
  return ticks / 100;
};

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const main = async (): Promise<void> => {
  // The instant receiver's rate, first, before the stack runs (or from bench:all).
  const ceilings = await ceilingsFor(['receiver']);
  const stack = await startStack({ apps: ['webhooks'], appEnv: { webhooks: { LOG_LEVEL: 'error' } } });
  let nats: NatsConnection | undefined;
  const pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
  const latencies: number[] = [];
  let received = 0;
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
      if (body.type !== 'TEST') {
        received += 1;
        latencies.push(Date.now() - Date.parse(body.timestamp));
      }
      response.writeHead(200).end();
    });
  });
  try {
    nats = await connect(stack.bus.harness);
    const js = nats.jetstream();
    nats.subscribe(`${stack.subjectPrefix}.${subjects.accounts.internalAccount.renderAt}`, {
      callback: (_error, message) => {
        const packet = codec.decode(message.data) as { id: string; data: { data: { accountId: string; streamPosition: number } } };
        const usd = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };
        const { accountId, streamPosition } = packet.data.data;
        const wire = {
          id: accountId,
          type: 'INTERNAL_FIAT',
          status: 'ACTIVE',
          balance: { amount: streamPosition, currency: usd },
          totalBalance: { amount: streamPosition, currency: usd },
          fundingPaymentInstructions: [],
          createdAt: '2026-01-01T00:00:00Z',
          updatedAt: '2026-01-01T00:00:00Z',
        };
        message.respond(codec.encode({ id: packet.id, response: wire, isDisposed: true }));
      },
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const platformId = newId('Platform');
    const accounts = Array.from({ length: ACCOUNTS }, () => newId('InternalAccount'));
    const positions = new Map(accounts.map((id) => [id, 1]));
    const publish = (
      type: string,
      service: string,
      aggregate: string,
      streamId: string,
      streamPosition: number,
      data: Record<string, unknown>,
    ) => {
      const eventId = uuidv7();
      return publishEvent(
        js,
        `${stack.subjectPrefix}.events.${service}.${aggregate}.${type}`,
        { eventId, type, streamId, streamPosition, occurredAt: new Date().toISOString(), platformId, correlationId: eventId, data },
        eventId,
      );
    };
    const credit = (index: number) => {
      const accountId = accounts[index % ACCOUNTS]!;
      const position = (positions.get(accountId) ?? 1) + 1;
      positions.set(accountId, position);
      return publish('AccountCredited', 'accounts', 'InternalAccount', accountId, position, { accountId });
    };
    const waitFor = async (count: number, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (received < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      if (received < count) throw new Error(`Only ${received} of ${count} webhooks arrived within ${timeoutMs} ms.`);
    };
    await publish('PlatformCreated', 'platform', 'Platform', platformId, 1, {
      platformId,
      environment: 'SANDBOX',
      settings: { webhookEndpoint: url },
    });
    for (let index = 0; index < 200; index += 1) await credit(index);
    await waitFor(200, 60_000);

    // Burst: everything published as fast as JetStream takes it; deliveries/s from first publish to last receipt.
    const metricsUrl = stack.healthUrl('webhooks').replace(/\/health$/, '/metrics');
    received = 0;
    latencies.length = 0;
    const burstCpuBefore = await webhooksCpuSeconds(metricsUrl);
    const burstPgBefore = await postgresCpuSeconds(pg, stack.database.name);
    const burstStart = performance.now();
    for (let index = 0; index < BURST; index += 50)
      await Promise.all(Array.from({ length: Math.min(50, BURST - index) }, (_, offset) => credit(index + offset)));
    const publishedMs = performance.now() - burstStart;
    await waitFor(BURST, 300_000);
    const burstMs = performance.now() - burstStart;
    const burstCpuMsPerWebhook = (((await webhooksCpuSeconds(metricsUrl)) - burstCpuBefore) * 1000) / BURST;
    const burstPgAfter = await postgresCpuSeconds(pg, stack.database.name);
    const burstPgMsPerWebhook =
      burstPgBefore === null || burstPgAfter === null ? null : Number((((burstPgAfter - burstPgBefore) * 1000) / BURST).toFixed(3));
    const burst = {
      webhooks: BURST,
      publishedPerSecond: Math.round(BURST / (publishedMs / 1000)),
      deliveriesPerSecond: Math.round(BURST / (burstMs / 1000)),
      cpuMsPerWebhook: Number(burstCpuMsPerWebhook.toFixed(3)),
      postgresCpuMsPerWebhook: burstPgMsPerWebhook,
    };

    // Steady: RATE events per second for SECONDS; latency from publication to receipt.
    received = 0;
    latencies.length = 0;
    const total = RATE * SECONDS;
    const steadyCpuBefore = await webhooksCpuSeconds(metricsUrl);
    const steadyPgBefore = await postgresCpuSeconds(pg, stack.database.name);
    const steadyStart = performance.now();
    for (let index = 0; index < total; index += 1) {
      const due = steadyStart + (index * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      void credit(index);
    }
    await waitFor(total, 120_000);
    const steadyCpuMsPerWebhook = (((await webhooksCpuSeconds(metricsUrl)) - steadyCpuBefore) * 1000) / total;
    const steadyPgAfter = await postgresCpuSeconds(pg, stack.database.name);
    const steadyPgMsPerWebhook =
      steadyPgBefore === null || steadyPgAfter === null ? null : Number((((steadyPgAfter - steadyPgBefore) * 1000) / total).toFixed(3));
    const sorted = [...latencies].sort((left, right) => left - right);
    const steady = {
      offeredPerSecond: RATE,
      webhooks: total,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? 0,
      cpuMsPerWebhook: Number(steadyCpuMsPerWebhook.toFixed(3)),
      postgresCpuMsPerWebhook: steadyPgMsPerWebhook,
    };
    const load = loadavg()
      .map((value) => value.toFixed(2))
      .join(' ');

    console.log(
      `burst:  ${burst.webhooks} webhooks, published at ${burst.publishedPerSecond}/s, delivered at ${burst.deliveriesPerSecond}/s ` +
        (`(first publish → last receipt), webhooks process CPU ${burst.cpuMsPerWebhook} ms per webhook, ` +
          `PostgreSQL ${burst.postgresCpuMsPerWebhook ?? 'n/a'} ms`),
    );
    console.log(
      `steady: ${steady.offeredPerSecond}/s offered for ${SECONDS} s, publication → receipt p50 ${steady.p50Ms} ms, p99 ${steady.p99Ms} ` +
        (`ms, max ${steady.maxMs} ms, webhooks process CPU ${steady.cpuMsPerWebhook} ms per webhook, ` +
          `PostgreSQL ${steady.postgresCpuMsPerWebhook ?? 'n/a'} ms`),
    );
    console.log(`load average at the end: ${load} (${cpus().length} CPUs)`);
    writeFileSync(join(__dirname, 'last-run-webhooks.json'), JSON.stringify({ burst, steady, load }, null, 2));
    const receiverCeiling = ceilings.receiver
      ? { label: 'instant receiver', value: ceilings.receiver.perSecond, unit: 'req/s' }
      : undefined;
    reportBench(
      'webhook delivery',
      ceilings,
      [
        {
          label: `burst of ${BURST} deliveries/s`,
          value: burst.deliveriesPerSecond,
          unit: 'webhooks/s',
          ...(receiverCeiling ? { ceiling: receiverCeiling } : {}),
          target: { kind: 'at-least', value: 1_000, text: '≥ 1,000 deliveries/s' },
        },
        { label: `steady ${RATE}/s: publication → receipt p99`, value: steady.p99Ms, unit: 'ms' },
        { label: 'webhooks process CPU per webhook (burst)', value: burst.cpuMsPerWebhook, unit: 'ms' },
      ],
      { burst, steady, load },
    );
  } finally {
    await nats?.drain();
    await pg.end();
    await new Promise((resolve) => receiver.close(resolve));
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
