import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { basic, type Credentials } from '../tests/support/api';
import { startStack } from '../tests/support/stack';
import { measureBareHop } from './ceilings';

// What a wrong-secret flood costs an honest tenant (issue 21, decision 0022): the first request of a
// token created a moment before — uncached, so it pays a secret verification — with and without a
// burst of wrong secrets against another platform's client id, beside the bare hop measured in the
// same run. Each round creates a fresh token on the honest platform, starts the burst (BURST
// requests at once, each from its own X-Forwarded-For address, so the per-address limit does not
// stop it at the gateway), waits 50 ms and times the token's first GET /config.
//   npm run bench:auth-abuse       (BENCH_ROUNDS=5, BENCH_BURST=150, BENCH_JSON=<path> writes the figures)
// Run on this branch and on the code before the defence (the same file works on both) to compare.

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const BURST = Number(process.env['BENCH_BURST'] ?? 150);
const round1 = (value: number): number => Math.round(value * 10) / 10;
const load = (): number[] => loadavg().map(round1);

type Sample = { ms: number; status: number };
type Summary = { rounds: number; p50Ms: number; maxMs: number; statuses: Record<string, number> };

const summarize = (samples: Sample[]): Summary => {
  const sorted = samples.map((sample) => sample.ms).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const { status } of samples) statuses[status] = (statuses[status] ?? 0) + 1;
  return {
    rounds: samples.length,
    p50Ms: round1(sorted[Math.floor(sorted.length / 2)] ?? 0),
    maxMs: round1(sorted[sorted.length - 1] ?? 0),
    statuses,
  };
};

const line = (summary: Summary): string => `p50 ${summary.p50Ms} ms, max ${summary.maxMs} ms, statuses ${JSON.stringify(summary.statuses)}`;

const main = async (): Promise<void> => {
  console.log('Measuring the bare hop ceiling (gateway → NATS → echo service) …');
  const bareHop = await measureBareHop(Number(process.env['BENCH_CEILING_SECONDS'] ?? 5));
  console.log('Starting the stack (every app as its own process) …');
  // The default limits of the gateway and the platform service; only the proxy is trusted, so each burst request has its own address.
  const stack = await startStack({
    env: {
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '127.0.0.1',
      RATE_LIMIT_REQUESTS: '200',
      RATE_LIMIT_PLATFORM_REQUESTS: '1000',
      AUTH_FAILURES_PER_ADDRESS: '20',
      AUTH_FAILURES_PER_CLIENT: '20',
      DATABASE_POOL_SIZE: '4',
    },
  });
  const loadAtStart = load();
  try {
    const attacked = (await stack.createPlatform()).token as Credentials;
    const honest = basic((await stack.createPlatform()).token as Credentials);
    const get = (authorization: string, address: string) =>
      fetch(`${stack.baseUrl}/config`, { headers: { authorization, 'x-forwarded-for': address } }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    // Creating a token hashes its secret on the same thread pool; while an earlier burst drains it may
    // time out, so it is retried (and counted) until the platform service has room again.
    let tokenCreationsRefused = 0;
    const newToken = async (): Promise<string> => {
      const body = JSON.stringify({ name: `bench ${randomBytes(3).toString('hex')}`, permissions: ['VIEW'] });
      for (const deadline = Date.now() + 120_000; Date.now() < deadline; tokenCreationsRefused += 1) {
        const response = await fetch(`${stack.baseUrl}/tokens`, {
          method: 'POST',
          headers: { authorization: honest, 'content-type': 'application/json' },
          body,
        });
        if (response.status === 201) return basic((await response.json()) as Credentials);
        await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      throw new Error('The platform service did not create a token within 120 s.');
    };
    const firstRequest = async (burst: boolean, round: number): Promise<Sample> => {
      const authorization = await newToken();
      const wrong = basic({ clientId: attacked.clientId, clientSecret: randomBytes(24).toString('hex') });
      const flood = burst
        ? Array.from({ length: BURST }, (_, index) => get(wrong, `10.${round}.${index >> 8}.${index & 255}`).catch(() => 0))
        : [];
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      const status = await get(authorization, `192.0.2.${round + 1}`).catch(() => 0);
      const ms = performance.now() - started;
      await Promise.all(flood);
      // Let the platform service drain before the next round.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return { ms, status };
    };
    const quiet: Sample[] = [];
    const flooded: Sample[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      quiet.push(await firstRequest(false, round));
      flooded.push(await firstRequest(true, round));
    }
    const report = {
      bench: 'auth-abuse',
      machine: { cpus: cpus().length, loadAverage: { start: loadAtStart, end: load() } },
      burst: BURST,
      bareHop: { perSecond: bareHop.perSecond, p50Ms: bareHop.p50Ms, p99Ms: bareHop.p99Ms },
      firstRequest: { quiet: summarize(quiet), duringBurst: summarize(flooded) },
      tokenCreationsRefused,
    };
    console.log(`bare hop (32 connections): ${bareHop.perSecond} req/s, p50 ${bareHop.p50Ms} ms, p99 ${bareHop.p99Ms} ms`);
    console.log(`new token's first request, quiet: ${line(report.firstRequest.quiet)}`);
    console.log(`new token's first request, ${BURST}-request wrong-secret burst: ${line(report.firstRequest.duringBurst)}`);
    console.log(`token creations refused while a burst drained (retried): ${tokenCreationsRefused}`);
    console.log(`load average: ${loadAtStart.join(' ')} at start, ${load().join(' ')} at end (${cpus().length} cores)`);
    if (process.env['BENCH_JSON']) writeFileSync(process.env['BENCH_JSON'], JSON.stringify(report, null, 2));
  } finally {
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
