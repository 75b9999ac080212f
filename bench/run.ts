import autocannon from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basic } from '../tests/support/api';
import { freePort, type Stack, startStack } from '../tests/support/stack';

// Measures the two hot paths of issue 2 at 32 connections against every app running here, beside
// the ceiling of the same gateway path when the service behind NATS answers at once.
//   npm run bench                 (BENCH_SECONDS=10 by default)

const CONNECTIONS = 32;
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);

type Figures = { requestsPerSecond: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number };

const measure = async (title: string, options: autocannon.Options): Promise<Figures> => {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const figures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  console.log(`${title.padEnd(44)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ms  non-2xx ${figures.non2xx}  errors ${figures.errors}`);
  return figures;
};

const newCustomerBody = JSON.stringify({ customerType: 'INDIVIDUAL', region: 'US', fullName: 'Bench Person' });

const runReal = async (stack: Stack) => {
  const { token } = await stack.createPlatform();
  const authorization = basic({ clientId: token.clientId, clientSecret: token.clientSecret! });
  const headers = { authorization, 'content-type': 'application/json' };
  const created = await fetch(`${stack.baseUrl}/customers`, { method: 'POST', headers, body: newCustomerBody });
  const customerId = ((await created.json()) as { id: string }).id;
  await measure('warm-up GET', { url: `${stack.baseUrl}/customers/${customerId}`, headers, duration: 3 });
  const get = await measure('GET /customers/{id} (all apps)', { url: `${stack.baseUrl}/customers/${customerId}`, headers });
  const post = await measure('POST /customers (all apps)', { url: `${stack.baseUrl}/customers`, method: 'POST', headers, body: newCustomerBody });
  return { get, post };
};

const runCeiling = async (stack: Stack) => {
  const prefix = `${stack.subjectPrefix}echo`;
  const [gatewayPort, echoHealthPort] = await Promise.all([freePort(), freePort()]);
  const env = { ...process.env, ...stack.env, CORRIDOR_SUBJECT_PREFIX: prefix, PORT: String(gatewayPort) };
  const root = join(__dirname, '..');
  const children: ChildProcess[] = [
    spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'bench/echo-service.ts')], { cwd: root, env: { ...env, HEALTH_PORT: String(echoHealthPort) }, stdio: 'inherit' }),
    spawn(process.execPath, ['-r', '@swc-node/register', join(root, 'apps/gateway/src/main.ts')], { cwd: root, env, stdio: 'inherit' }),
  ];
  try {
    const baseUrl = `http://127.0.0.1:${env.PORT}/2025-10-13`;
    const deadline = Date.now() + 60_000;
    while ((await fetch(`http://127.0.0.1:${env.PORT}/health`).then((r) => r.status).catch(() => 0)) !== 200) {
      if (Date.now() > deadline) throw new Error('the ceiling gateway did not start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const headers = { authorization: basic({ clientId: 'bench', clientSecret: 'bench' }), 'content-type': 'application/json' };
    const id = 'Customer:0196f1a0-0000-7000-8000-000000000001';
    await measure('warm-up echo', { url: `${baseUrl}/customers/${id}`, headers, duration: 3 });
    const get = await measure('GET /customers/{id} ceiling (NATS echo)', { url: `${baseUrl}/customers/${id}`, headers });
    const post = await measure('POST /customers ceiling (NATS echo)', { url: `${baseUrl}/customers`, method: 'POST', headers, body: newCustomerBody });
    return { get, post };
  } finally {
    children.forEach((child) => child.kill('SIGTERM'));
  }
};

const main = async () => {
  const stack = await startStack();
  try {
    console.log(`autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run\n`);
    const real = await runReal(stack);
    const ceiling = await runCeiling(stack);
    const summary = {
      measuredAt: new Date().toISOString(),
      connections: CONNECTIONS,
      seconds: SECONDS,
      real,
      ceiling,
      getShareOfCeiling: Math.round((real.get.requestsPerSecond / ceiling.get.requestsPerSecond) * 100),
    };
    console.log(`\nGET reaches ${summary.getShareOfCeiling} % of its ceiling; POST creates ${real.post.requestsPerSecond} customers/s with p99 ${real.post.p99Ms} ms.`);
    writeFileSync(join(__dirname, 'last-run.json'), `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    await stack.close();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
