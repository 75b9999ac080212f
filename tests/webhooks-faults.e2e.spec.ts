// At-least-once webhook delivery across faults, with the webhooks service as its own process:
// kill -9 while 500 webhooks are pending (some in flight), and separately a restart of the Redis
// that carries BullMQ (a throwaway redis-server of this test; the machine's shared one is left
// alone). After each, every webhook arrives, per-resource order holds, and duplicates are counted.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect as connectSocket } from 'node:net';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { newId, subjects } from '@corridor/contracts';
import { publishEvent } from '@corridor/messaging';
import { createConformance, waitUntil } from '@corridor/testing';
import { freePort, type Stack, startStack } from './support/stack';

const EVENTS = 500;
const ACCOUNTS = 25;
const codec = JSONCodec();
const conformance = createConformance();

let stack: Stack;
let nats: NatsConnection;
let redis: ChildProcess | undefined;
let redisPort: number;
let receiver: Server;
let receiverUrl: string;

type Receipt = { id: string; resourceId: string; position: number };
const receipts: Receipt[] = [];
/** While closed, requests are recorded but not answered: they stay in flight. */
let gateOpen = true;
const held: ServerResponse[] = [];

const startRedis = async (): Promise<void> => {
  const child = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  redis = child;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connectSocket(redisPort, '127.0.0.1');
      socket.once('connect', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${redisPort}.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const stopRedis = async (): Promise<void> => {
  const child = redis;
  redis = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
};

const query = async <T>(sql: string, values: unknown[] = []): Promise<T[]> => {
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
};

/** Waits long (500 deliveries after a crash); on a timeout, shows the webhooks service's last output. */
const waitLong = (what: string, check: () => Promise<boolean> | boolean): Promise<void> =>
  waitUntil(what, check, 90_000, () => `\n--- webhooks output ---\n${stack.logs.webhooks.join('').slice(-3000)}`);

const publish = (
  type: string,
  service: string,
  aggregate: string,
  streamId: string,
  streamPosition: number,
  platformId: string,
  data: Record<string, unknown>,
) => {
  const eventId = uuidv7();
  return publishEvent(
    nats.jetstream(),
    `${stack.subjectPrefix}.events.${service}.${aggregate}.${type}`,
    { eventId, type, streamId, streamPosition, occurredAt: new Date().toISOString(), platformId, correlationId: eventId, data },
    eventId,
  );
};

/** 500 balance changes over 25 accounts, published interleaved: account k gets positions 2..21. */
const publishBurst = async (platformId: string): Promise<string[]> => {
  const accounts = Array.from({ length: ACCOUNTS }, () => newId('InternalAccount'));
  for (let position = 2; position < 2 + EVENTS / ACCOUNTS; position += 1) {
    await Promise.all(
      accounts.map((accountId) =>
        publish('AccountCredited', 'accounts', 'InternalAccount', accountId, position, platformId, { accountId }),
      ),
    );
  }
  return accounts;
};

const deliveredCount = async (accounts: string[]): Promise<number> =>
  Number(
    (
      await query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE resource_id = ANY($1) AND status = 'DELIVERED'`, [
        accounts,
      ])
    )[0]?.count ?? 0,
  );

/** Every webhook of the burst arrived; per account the first receipts come in stream order; duplicates counted. */
const checkBurst = (accounts: string[], label: string): number => {
  const mine = receipts.filter((receipt) => accounts.includes(receipt.resourceId));
  const distinct = new Set(mine.map((receipt) => receipt.id));
  expect(distinct.size).toBe(EVENTS);
  for (const accountId of accounts) {
    const positions = mine.filter((receipt) => receipt.resourceId === accountId).map((receipt) => receipt.position);
    // At-least-once allows the head to come again; a later position never arrives before an earlier one.
    expect(positions).toEqual([...positions].sort((left, right) => left - right));
    expect(new Set(positions).size).toBe(EVENTS / ACCOUNTS);
  }
  const perId = new Map<string, number>();
  for (const receipt of mine) perId.set(receipt.id, (perId.get(receipt.id) ?? 0) + 1);
  expect(Math.max(...perId.values())).toBeLessThanOrEqual(2);
  const duplicates = mine.length - distinct.size;
  console.log(
    `webhooks faults (${label}): ${EVENTS} webhooks, ${mine.length} receipts, ${duplicates} duplicates (each re-sent at most once)`,
  );
  return duplicates;
};

beforeAll(async () => {
  redisPort = await freePort();
  await startRedis();
  stack = await startStack({
    apps: ['webhooks'],
    appEnv: { webhooks: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_CONCURRENCY: '32' } },
  });
  nats = await connect(stack.bus.harness);
  // The accounts service's render-at, answered by the test (only the webhooks app runs here):
  // the balance is the stream position, so the receiver can check order.
  nats.subscribe(`${stack.subjectPrefix}.${subjects.accounts.internalAccount.renderAt}`, {
    callback: (_error, message) => {
      const packet = codec.decode(message.data) as { id: string; data: { data: { accountId: string; streamPosition: number } } };
      const { accountId, streamPosition } = packet.data.data;
      const usd = { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 };
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
  receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        id: string;
        type: string;
        data: { id?: string; balance?: { amount: number } };
      };
      conformance.checkWebhook(body);
      if (body.type !== 'TEST') receipts.push({ id: body.id, resourceId: body.data.id ?? '', position: body.data.balance?.amount ?? 0 });
      if (gateOpen) response.writeHead(200).end();
      else held.push(response);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  await nats?.drain();
  await stack?.close();
  await stopRedis();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const newPlatform = async (): Promise<string> => {
  const platformId = newId('Platform');
  await publish('PlatformCreated', 'platform', 'Platform', platformId, 1, platformId, {
    platformId,
    environment: 'SANDBOX',
    settings: { webhookEndpoint: receiverUrl },
  });
  return platformId;
};

const openGate = (): void => {
  gateOpen = true;
  for (const response of held.splice(0)) response.writeHead(200).end();
};

it('delivers every pending webhook after kill -9 of the webhooks process, in per-resource order', async () => {
  const platformId = await newPlatform();
  gateOpen = false;
  const accounts = await publishBurst(platformId);
  // All 500 are in the log and the first of several accounts are in flight, unanswered.
  await waitLong(
    '500 delivery rows',
    async () =>
      Number(
        (await query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE resource_id = ANY($1)`, [accounts]))[0]?.count,
      ) === EVENTS,
  );
  await waitLong('webhooks in flight', () => held.length >= 10);
  expect(await deliveredCount(accounts)).toBe(0);

  await stack.kill('webhooks');
  openGate();
  await stack.start('webhooks');

  await waitLong('every webhook delivered after the restart', async () => (await deliveredCount(accounts)) === EVENTS);
  checkBurst(accounts, 'kill -9');
}, 180_000);

it('delivers every pending webhook after the Redis that carries the queue restarts empty', async () => {
  const platformId = await newPlatform();
  gateOpen = false;
  const accounts = await publishBurst(platformId);
  await waitLong(
    '500 delivery rows',
    async () =>
      Number(
        (await query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE resource_id = ANY($1)`, [accounts]))[0]?.count,
      ) === EVENTS,
  );
  await waitLong('webhooks in flight', () => held.length >= 10);

  await stopRedis();
  await startRedis();
  openGate();

  await waitLong('every webhook delivered after the Redis restart', async () => (await deliveredCount(accounts)) === EVENTS);
  checkBurst(accounts, 'Redis restart');
  // No job survived the restart, so everything after the in-flight heads was enqueued again from PostgreSQL.
  const rows = await query<{ status: string; attempts: string }>(
    `SELECT status, count(*) AS attempts FROM webhooks.deliveries WHERE resource_id = ANY($1) GROUP BY status`,
    [accounts],
  );
  expect(rows).toEqual([{ status: 'DELIVERED', attempts: String(EVENTS) }]);
}, 180_000);
