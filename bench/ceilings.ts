import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type AppendMetadata, createPostgresEventStore } from '@corridor/event-store';
import { uniqueRedisPrefix, uniqueSubjectPrefix } from '@corridor/testing';
import { basic } from '../tests/support/api';
import { freePort } from '../tests/support/stack';

// The same-run ceilings every bench compares its figures with (issue 17, item 1):
//   - bare hop: HTTP → gateway → NATS → a service that answers at once (bench/echo-service.ts),
//     GET /customers/{id} at 32 connections, with the CPU the gateway and the echo spend per request;
//   - bare append: PostgresEventStore.appendToStream of one event at a known version, 1 and 8
//     writers each on its own stream, no service;
//   - receiver: an HTTP server that answers 200 at once, POSTed a webhook-sized JSON body at 32
//     connections from this process (what a webhook receiver on this machine can take).
// Under `npm run bench:all` they are measured once, first, on a quiet machine and handed to every
// bench in BENCH_CEILINGS (a JSON file); a bench run on its own measures the ones it needs itself,
// before its real run.

export type Rate = { perSecond: number; p50Ms: number; p99Ms: number; count: number; errors: number };
export type Ceilings = {
  measuredAt: string;
  /** 'bench:all' when read from BENCH_CEILINGS, 'this bench' when measured by the bench itself. */
  source: string;
  seconds: number;
  machine: { cpus: number; loadAverage: number[] };
  bareHop?: Rate & { cpuMsPerRequest: { gateway: number; echo: number; driver: number; server: number } };
  append?: { oneWriter: Rate; eightWriters: Rate };
  receiver?: Rate;
};
export type CeilingKind = 'bareHop' | 'append' | 'receiver';

export const CEILING_SECONDS = Number(process.env['BENCH_CEILING_SECONDS'] ?? 8);
const CONNECTIONS = 32;
const root = join(__dirname, '..');
const round1 = (value: number): number => Math.round(value * 10) / 10;
const load = (): number[] => loadavg().map(round1);

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : round1(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

/** CPU seconds (user + system) of one process from /proc (0 when unreadable, e.g. not Linux). */
export const processCpuSeconds = (pid: number | undefined): number => {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};

const fromAutocannon = (result: autocannon.Result): Rate => ({
  perSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  count: result.requests.total,
  errors: result.errors + result.timeouts + result.non2xx,
});

/** Stops a child: SIGTERM, SIGKILL after 5 s; resolves when it has exited. */
export const stopChild = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
};

/** The bare hop: a second gateway on its own subject prefix in front of the echo service. */
export const measureBareHop = async (seconds = CEILING_SECONDS): Promise<NonNullable<Ceilings['bareHop']>> => {
  const [gatewayPort, gatewayMetricsPort, echoHealthPort] = await Promise.all([freePort(), freePort(), freePort()]);
  const blobDirectory = await mkdtemp(join(tmpdir(), 'corridor-bench-echo-'));
  const env = {
    ...process.env,
    NATS_URL: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    CORRIDOR_SUBJECT_PREFIX: `${uniqueSubjectPrefix()}echo`,
    REDIS_KEY_PREFIX: uniqueRedisPrefix(),
    PORT: String(gatewayPort),
    GATEWAY_METRICS_PORT: String(gatewayMetricsPort),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REQUESTS: '1000000',
    RATE_LIMIT_PLATFORM_REQUESTS: '1000000',
    BLOB_STORE: 'local',
    BLOB_DIR: blobDirectory,
    // A profiler or heap flag meant for the stack's apps must not slow the ceiling.
    NODE_OPTIONS: '',
  };
  const output: string[] = [];
  const start = (file: string, extra: Record<string, string> = {}): ChildProcess => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, file)], {
      cwd: root,
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => output.push(`${file}: ${chunk.toString()}`));
    child.stderr?.on('data', (chunk: Buffer) => output.push(`${file}: ${chunk.toString()}`));
    return child;
  };
  const echo = start('bench/echo-service.ts', { HEALTH_PORT: String(echoHealthPort) });
  const gateway = start('apps/gateway/src/main.ts');
  try {
    const deadline = Date.now() + 120_000;
    let last = '';
    for (;;) {
      const reply = await fetch(`http://127.0.0.1:${gatewayPort}/health`).then(
        async (response) => ({ status: response.status, text: await response.text() }),
        (error: Error) => ({ status: 0, text: error.message }),
      );
      if (reply.status === 200) break;
      last = `${reply.status} ${reply.text}`;
      if (echo.exitCode !== null || gateway.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `The ceiling gateway did not report healthy within 120 s (last /health: ${last}).\n${output.join('').slice(-4_000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const url = `http://127.0.0.1:${gatewayPort}/2025-10-13/customers/Customer:0196f1a0-0000-7000-8000-000000000001`;
    const headers = { authorization: basic({ clientId: 'bench', clientSecret: 'bench' }) };
    await autocannon({ url, headers, connections: CONNECTIONS, duration: Math.min(3, seconds) });
    const before = { gateway: processCpuSeconds(gateway.pid), echo: processCpuSeconds(echo.pid), driver: processCpuSeconds(process.pid) };
    const rate = fromAutocannon(await autocannon({ url, headers, connections: CONNECTIONS, duration: seconds }));
    const spent = (pid: number | undefined, was: number) =>
      Math.round(((processCpuSeconds(pid) - was) * 1_000_000) / Math.max(1, rate.count)) / 1000;
    const cpuMsPerRequest = {
      gateway: spent(gateway.pid, before.gateway),
      echo: spent(echo.pid, before.echo),
      driver: spent(process.pid, before.driver),
      server: 0,
    };
    cpuMsPerRequest.server = Math.round((cpuMsPerRequest.gateway + cpuMsPerRequest.echo) * 1000) / 1000;
    if (rate.errors > rate.count / 100)
      throw new Error(`The bare hop answered ${rate.errors} of ${rate.count} requests with an error.\n${output.join('').slice(-4_000)}`);
    return { ...rate, cpuMsPerRequest };
  } finally {
    await Promise.all([stopChild(gateway), stopChild(echo)]);
    await rm(blobDirectory, { recursive: true, force: true });
  }
};

/** Bare appends: `writers` loops, each appending one event at a time to its own stream at a known version. */
export const measureAppend = async (
  databaseUrl: string,
  writers: number,
  seconds = CEILING_SECONDS,
  // bench/event-metadata.ts appends with other metadata, in a schema of its own.
  own: { schema?: string; metadata?: AppendMetadata } = {},
): Promise<Rate> => {
  const store = createPostgresEventStore({
    connectionString: databaseUrl,
    schema: own.schema ?? 'bench_append_ceiling',
    poolSize: writers + 1,
  });
  const metadata = own.metadata ?? {
    platformId: 'Platform:bench',
    correlationId: randomUUID(),
    requestId: randomUUID(),
    actor: { kind: 'system' as const, name: 'bench' },
  };
  const data = {
    accountId: 'InternalAccount:bench',
    operationId: 'op',
    holdId: 'Hold:bench',
    amount: '1',
    currency: 'USD',
    cause: { kind: 'TRANSACTION', id: 'Transaction:bench' },
  };
  try {
    const run = async (forSeconds: number) => {
      const latencies: number[] = [];
      let errors = 0;
      const started = performance.now();
      const deadline = started + forSeconds * 1000;
      await Promise.all(
        Array.from({ length: writers }, async () => {
          const streamId = `BenchStream:${randomUUID()}`;
          for (let version = 0; performance.now() < deadline;) {
            const begin = performance.now();
            try {
              version = (
                await store.appendToStream(streamId, [{ type: 'FundsHeld', data: { ...data, operationId: `op:${version}` } }], {
                  expectedVersion: version,
                  metadata,
                })
              ).version;
              latencies.push(performance.now() - begin);
            } catch {
              errors += 1;
              if (errors > 100) throw new Error('The bare event store refused more than 100 appends.');
            }
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      return {
        perSecond: Math.round(latencies.length / elapsed),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        count: latencies.length,
        errors,
      };
    };
    await run(Math.min(1, seconds));
    return await run(seconds);
  } finally {
    await store.close();
  }
};

/** A receiver that answers 200 at once, driven from this process at 32 connections. */
export const measureReceiver = async (seconds = CEILING_SECONDS): Promise<Rate> => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  try {
    const body = JSON.stringify({
      id: 'Webhook:0196f1a0-0000-7000-8000-000000000001',
      type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
      timestamp: new Date().toISOString(),
      data: {
        id: 'InternalAccount:0196f1a0-0000-7000-8000-000000000002',
        type: 'INTERNAL_FIAT',
        status: 'ACTIVE',
        balance: { amount: 1, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
        fundingPaymentInstructions: [],
        createdAt: '2026-01-01T00:00:00Z',
        updatedAt: '2026-01-01T00:00:00Z',
      },
    });
    const options = {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', 'x-grid-signature': 'x'.repeat(120) },
      body,
      connections: CONNECTIONS,
    };
    await autocannon({ ...options, duration: Math.min(2, seconds) });
    return fromAutocannon(await autocannon({ ...options, duration: seconds }));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
};

const describe = (ceilings: Ceilings): string[] => [
  ...(ceilings.bareHop
    ? [
        `  bare hop (HTTP → gateway → NATS → echo, GET, ${CONNECTIONS} connections): ${ceilings.bareHop.perSecond} req/s, ` +
          (`p50 ${ceilings.bareHop.p50Ms} ms, p99 ${ceilings.bareHop.p99Ms} ms; CPU ms/request ` +
            (`gateway ${ceilings.bareHop.cpuMsPerRequest.gateway} + echo ${ceilings.bareHop.cpuMsPerRequest.echo} ` +
              `= ${ceilings.bareHop.cpuMsPerRequest.server} (driver ${ceilings.bareHop.cpuMsPerRequest.driver})`)),
      ]
    : []),
  ...(ceilings.append
    ? [
        `  bare event-store append (PostgresEventStore, one event, known version): 1 writer ${ceilings.append.oneWriter.perSecond}/s ` +
          (`(p50 ${ceilings.append.oneWriter.p50Ms} ms); 8 writers ${ceilings.append.eightWriters.perSecond}/s ` +
            `(p50 ${ceilings.append.eightWriters.p50Ms} ms)`),
      ]
    : []),
  ...(ceilings.receiver
    ? [
        `  webhook receiver answering at once (POST, ${CONNECTIONS} connections): ${ceilings.receiver.perSecond} req/s, ` +
          `p99 ${ceilings.receiver.p99Ms} ms`,
      ]
    : []),
];

/**
 * The ceilings a bench needs: from BENCH_CEILINGS (bench:all measured them first on a quiet
 * machine) or, on its own, measured now — call it before the real run, on a quiet stack.
 */
export const ceilingsFor = async (needs: CeilingKind[], databaseUrl?: string): Promise<Ceilings> => {
  const file = process.env['BENCH_CEILINGS'];
  const ceilings: Ceilings =
    file && existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Ceilings)
      : {
          measuredAt: new Date().toISOString(),
          source: 'this bench',
          seconds: CEILING_SECONDS,
          machine: { cpus: cpus().length, loadAverage: load() },
        };
  const missing = needs.filter((kind) => !ceilings[kind]);
  if (missing.length > 0) {
    console.log(`Measuring the ceilings (${missing.join(', ')}; ${CEILING_SECONDS} s each) before the real run …`);
    ceilings.source = ceilings.source === 'bench:all' ? 'bench:all + this bench' : ceilings.source;
    if (missing.includes('bareHop')) ceilings.bareHop = await measureBareHop();
    if (missing.includes('append')) {
      // Without the stack's database, a throwaway one.
      const { createTestDatabase } = await import('@corridor/testing');
      const own = databaseUrl ? undefined : await createTestDatabase(undefined, 'corridor_bench_');
      try {
        const url = databaseUrl ?? own!.url;
        ceilings.append = { oneWriter: await measureAppend(url, 1), eightWriters: await measureAppend(url, 8) };
      } finally {
        await own?.drop();
      }
    }
    if (missing.includes('receiver')) ceilings.receiver = await measureReceiver();
  }
  console.log(
    `Ceilings (${ceilings.source}, measured ${ceilings.measuredAt}, load average then ${ceilings.machine.loadAverage.join(' ')}):`,
  );
  for (const line of describe(ceilings)) console.log(line);
  return ceilings;
};

export const describeCeilings = describe;

// `npm run bench:ceilings`: only the ceilings, on a fresh database (BENCH_CEILING_SECONDS).
if (require.main === module) {
  void (async () => {
    const { createTestDatabase } = await import('@corridor/testing');
    const database = await createTestDatabase(undefined, 'corridor_bench_');
    try {
      await ceilingsFor(['bareHop', 'append', 'receiver'], database.url);
    } finally {
      await database.drop();
    }
  })().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
