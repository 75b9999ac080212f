import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basic, type Credentials } from '../tests/support/api';
import { startStack } from '../tests/support/stack';
import { benchClient } from './http';

// What an agent pays over its platform for the same work (issue 15's benchmark; the figures and
// what the agent pays on top are in bench/README.md, "Agent overhead"): one stack, one funded
// customer, one AUTO agent with generous limits, and side by side in the same run at 32 connections:
//   - GET /agents/me/transactions?limit=20 (Bearer)  vs  GET /transactions?customerId=…&limit=20 (Basic)
//   - GET /agents/me/internal-accounts               vs  GET /customers/internal-accounts?customerId=…
//   - POST /agents/me/transfer-out                   vs  POST /transfer-out, the same body (1 minor unit,
//     a fresh Idempotency-Key per request)
// The agent side pays the token check (one NATS hop to agents, uncached), the agent read, the
// customer lookup and, for a transfer, the usage reservation under its row lock and the action's
// stream. Prints req/s, p50/p99 per side and the ratio agent/platform; BENCH_JSON=<path> writes it.
//   npm run bench:agents     (BENCH_SECONDS=10 per side, BENCH_CONNECTIONS=32)

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 32);
const FUNDING = 100_000_000_000;
const GENEROUS = 1_000_000_000_000;

type Side = { requestsPerSecond: number; p50Ms: number; p99Ms: number; ok: number; non2xx: number; errors: number };
type Pair = { name: string; agent: Side; platform: Side; ratio: { requestsPerSecond: number; p50: number; p99: number } };

const load = (): number[] => loadavg().map((value) => Math.round(value * 10) / 10);
const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((a / b) * 100) / 100);

const measure = async (
  title: string,
  url: string,
  authorization: string,
  method: 'GET' | 'POST' = 'GET',
  body?: unknown,
): Promise<Side> => {
  const headers: Record<string, string> = { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    // A fresh Idempotency-Key per POST, so every request is new work and not a replay.
    ...(method === 'POST'
      ? {
          requests: [
            { setupRequest: (request: any) => ({ ...request, headers: { ...request.headers, 'idempotency-key': randomUUID() } }) },
          ],
        }
      : {}),
  });
  const side = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  console.log(
    `  ${title.padEnd(50)} ${String(side.requestsPerSecond).padStart(6)} req/s  p50 ${side.p50Ms} ms  p99 ${side.p99Ms} ` +
      `ms  non-2xx ${side.non2xx}  errors ${side.errors}`,
  );
  return side;
};

const main = async (): Promise<void> => {
  console.log('Starting the stack (every app as its own process) …');
  const stack = await startStack({ env: { LOG_LEVEL: 'warn' } });
  const loadAtStart = load();
  try {
    const { token } = await stack.createPlatform();
    const platform = basic(token as Credentials);
    const clients = new Map<string, ReturnType<typeof benchClient>>();
    const call = async (method: string, path: string, body?: unknown, authorization = platform): Promise<any> => {
      let client = clients.get(authorization);
      if (!client) {
        client = benchClient(stack.baseUrl, authorization);
        clients.set(authorization, client);
      }
      const headers: Record<string, string> = method === 'POST' ? { 'idempotency-key': randomUUID() } : {};
      return (await client.setup(method, path, body, headers)).body;
    };
    const customer = await call('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Agent Bench', currencies: ['USD'] });
    const customerId = customer.id as string;
    let usd: string | undefined;
    while (!usd) {
      usd = (await call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)).data?.[0]?.id;
      if (!usd) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await call('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: FUNDING });
    const bank = await call('POST', '/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '4000000010001',
        routingNumber: '011000015',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
      },
    });
    const created = await call('POST', '/agents', {
      name: 'Bench agent',
      customerId,
      policy: {
        permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: {
          currency: 'USD',
          perTransactionLimit: GENEROUS,
          dailyLimit: GENEROUS,
          dailyTransactionLimit: 1_000_000,
          monthlyLimit: GENEROUS,
        },
      },
    });
    const redeemed = await call('POST', `/agents/device-codes/${created.deviceCode.code as string}/redeem`);
    const agent = `Bearer ${redeemed.accessToken as string}`;
    // A few transactions of the customer, so both lists have a page to render.
    const transfer = { source: { accountId: usd }, destination: { accountId: bank.id as string }, amount: 1 };
    for (let n = 0; n < 20; n += 1) await call('POST', '/transfer-out', transfer);

    const base = stack.baseUrl;
    const pairs: Pair[] = [];
    const pair = async (name: string, agentSide: () => Promise<Side>, platformSide: () => Promise<Side>) => {
      console.log(name);
      const a = await agentSide();
      const p = await platformSide();
      pairs.push({
        name,
        agent: a,
        platform: p,
        ratio: {
          requestsPerSecond: ratio(a.requestsPerSecond, p.requestsPerSecond),
          p50: ratio(a.p50Ms, p.p50Ms),
          p99: ratio(a.p99Ms, p.p99Ms),
        },
      });
      console.log(
        `  agent/platform: req/s ×${ratio(a.requestsPerSecond, p.requestsPerSecond)}, p50 ×${ratio(a.p50Ms, p.p50Ms)}, p99 ` +
          `×${ratio(a.p99Ms, p.p99Ms)}`,
      );
    };
    console.log(`${CONNECTIONS} connections, ${SECONDS} s per side`);
    await pair(
      'list transactions (limit 20)',
      () => measure('GET /agents/me/transactions?limit=20 (Bearer)', `${base}/agents/me/transactions?limit=20`, agent),
      () =>
        measure(
          'GET /transactions?customerId=…&limit=20 (Basic)',
          `${base}/transactions?customerId=${encodeURIComponent(customerId)}&limit=20`,
          platform,
        ),
    );
    await pair(
      'list internal accounts',
      () => measure('GET /agents/me/internal-accounts (Bearer)', `${base}/agents/me/internal-accounts`, agent),
      () =>
        measure(
          'GET /customers/internal-accounts?customerId=… (Basic)',
          `${base}/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`,
          platform,
        ),
    );
    await pair(
      'transfer-out, 1 minor unit',
      () => measure('POST /agents/me/transfer-out (Bearer)', `${base}/agents/me/transfer-out`, agent, 'POST', transfer),
      () => measure('POST /transfer-out (Basic)', `${base}/transfer-out`, platform, 'POST', transfer),
    );
    const result = {
      bench: 'agent-overhead',
      measuredAt: new Date().toISOString(),
      connections: CONNECTIONS,
      secondsPerSide: SECONDS,
      pairs,
      machine: { cpus: cpus().length, loadAverageAtStart: loadAtStart, loadAverageAtEnd: load() },
    };
    console.log(
      `load average ${loadAtStart.join(' ')} at start, ${result.machine.loadAverageAtEnd.join(' ')} at end, on ${result.machine.cpus} CPUs`,
    );
    const path = process.env['BENCH_JSON'];
    if (path) {
      writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
      console.log(`written to ${path}`);
    }
    const broken = pairs.flatMap((entry) => [entry.agent, entry.platform]).filter((side) => side.ok === 0 || side.errors > 0);
    if (broken.length > 0) throw new Error(`${broken.length} sides had no 2xx answer or connection errors; see above.`);
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
