// One hot internal account (issue 13, item 6): 32 concurrent transfer-outs, each under its own
// Idempotency-Key, plus concurrent ACH transfer-ins, all on the same account. Every request queues
// on the account and is either accepted (and ends terminal) or refused with a 400 for funds —
// never a 5xx while PostgreSQL is up. The money adds up: nothing accepted beyond what was there,
// the balance never dips below zero, and the books balance afterwards.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { newUuid, type TransactionWire } from '@corridor/contracts';
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials, type Reply } from './support/api';
import { isTerminal, lowestAvailable } from './support/payments';
import { freePort, type Stack, startStack } from './support/stack';

type Account = { id: string; balance: { amount: number; currency: { code: string } }; totalBalance: { amount: number } };

const CONCURRENT_OUTS = 32;
const CONCURRENT_INS = 8;
const OUT_AMOUNT = 5_000;
const IN_AMOUNT = 1_000;
/** 3 rounds × 32 × 1,100 is more than the funding, so the last round must see refusals. */
const REPLICA_OUT_AMOUNT = 1_100;
/** Less than 32 × 5,000 (even with every transfer-in credited first), so some transfer-outs must be refused. */
const FUNDING = 100_000;

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' };
let bankCount = 0;

const newCustomer = async (): Promise<{ customerId: string; usd: string }> => {
  const created = await api.call('POST', '/customers', {
    auth: platform,
    body: { customerType: 'INDIVIDUAL', fullName: 'Hot Account', currencies: ['USD'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body
        .data as Account[],
    (list) => list.length >= 1,
  );
  const usd = accounts.find((account) => account.balance.currency.code === 'USD')?.id;
  if (!usd) throw new Error(`customer ${customerId} has no USD account`);
  return { customerId, usd };
};

/** A USD ACH account ending 001 (the sandbox rail completes it), so it can be paid to and pulled from. */
const bankAccount = async (customerId: string): Promise<string> => {
  bankCount += 1;
  const accountNumber = `5${String(bankCount).padStart(7, '0')}0001`;
  const created = await api.call('POST', '/customers/external-accounts', {
    auth: platform,
    body: {
      customerId,
      currency: 'USD',
      accountInfo: { accountType: 'USD_ACCOUNT', accountNumber, routingNumber: '011000015', beneficiary: person },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
};

const move = (path: '/transfer-out' | '/transfer-in', source: string, destination: string, amount: number): Promise<Reply> =>
  api.call('POST', path, {
    auth: platform,
    body: { source: { accountId: source }, destination: { accountId: destination }, amount },
    headers: { 'Idempotency-Key': newUuid() },
  });

const balanceOf = async (customerId: string, accountId: string): Promise<[number, number]> => {
  const list = (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body
    .data as Account[];
  const found = list.find((account) => account.id === accountId);
  if (!found) throw new Error(`${accountId} is not listed`);
  return [found.balance.amount, found.totalBalance.amount];
};

const terminal = async (ids: string[]): Promise<TransactionWire[]> =>
  Promise.all(
    ids.map((id) =>
      eventually(
        async () => (await api.call('GET', `/transactions/${id}`, { auth: platform })).body as TransactionWire,
        (transaction) => isTerminal(transaction),
        30_000,
      ),
    ),
  );

/** Names every 5xx with its body, so a failure says what the client saw. */
const serverErrors = (replies: Reply[]): string[] =>
  replies.filter((reply) => reply.status >= 500).map((reply) => `${reply.status} ${reply.text.slice(0, 200)}`);

beforeAll(async () => {
  stack = await startStack({ env: { TRANSFER_SWEEP_SECONDS: '1' } });
  api = createApi(stack, 'hot-account');
  platform = (await stack.createPlatform()).token as Credentials;
}, 180_000);

const replicas: ChildProcess[] = [];
const replicaLogs: string[] = [];

/** One more process of an app on the stack's database and subject prefix (NATS spreads requests over both). */
const startReplica = async (app: 'accounts' | 'payments'): Promise<void> => {
  const healthPort = await freePort();
  const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, `../apps/${app}/src/main.ts`)], {
    cwd: join(__dirname, '..'),
    env: { ...process.env, ...stack.env, ...stack.bus.envFor(app), HEALTH_PORT: String(healthPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => replicaLogs.push(`${app} replica: ${chunk.toString()}`);
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  replicas.push(child);
  const ready = await eventually(
    () =>
      fetch(`http://127.0.0.1:${healthPort}/health`).then(
        (reply) => reply.status,
        () => 0,
      ),
    (status) => status !== 0 || child.exitCode !== null,
    60_000,
  );
  if (ready === 0) throw new Error(`the ${app} replica did not start:\n${replicaLogs.join('')}`);
};

afterAll(async () => {
  api?.saveReport();
  await Promise.all(
    replicas.map(
      (child) =>
        new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : (child.once('exit', resolve), child.kill('SIGTERM')))),
    ),
  );
  await stack?.close();
});

describe('one hot internal account', () => {
  it('queues 32 concurrent transfer-outs and 8 transfer-ins: each is accepted and ends terminal or is a 400 for funds, never a 5xx', async () => {
    const { customerId, usd } = await newCustomer();
    const bank = await bankAccount(customerId);
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth: platform, body: { amount: FUNDING } })).status).toBe(
      200,
    );

    const outs = Array.from({ length: CONCURRENT_OUTS }, () => move('/transfer-out', usd, bank, OUT_AMOUNT));
    const ins = Array.from({ length: CONCURRENT_INS }, () => move('/transfer-in', bank, usd, IN_AMOUNT));
    const [outReplies, inReplies] = await Promise.all([Promise.all(outs), Promise.all(ins)]);

    expect(serverErrors([...outReplies, ...inReplies])).toEqual([]);
    const acceptedOuts = outReplies.filter((reply) => reply.status === 201);
    const refusedOuts = outReplies.filter((reply) => reply.status !== 201);
    for (const refused of refusedOuts) {
      expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_AMOUNT', details: { reason: 'INSUFFICIENT_FUNDS' } });
    }
    expect(inReplies.map((reply) => reply.status)).toEqual(inReplies.map(() => 201));
    // The total asked for exceeds anything the account could hold, so some must be refused …
    expect(refusedOuts.length).toBeGreaterThan(0);
    // … but only once the money ran out: holds take turns on the account, and a refusal means less than one transfer was left.
    const acceptedTotal = acceptedOuts.length * OUT_AMOUNT;
    expect(acceptedTotal).toBeGreaterThan(FUNDING - OUT_AMOUNT);
    expect(acceptedTotal).toBeLessThanOrEqual(FUNDING + CONCURRENT_INS * IN_AMOUNT);

    const outcomes = await terminal([...acceptedOuts, ...inReplies].map((reply) => reply.body.id as string));
    expect(
      outcomes.filter((transaction) => !isTerminal(transaction)).map((transaction) => `${transaction.id} ${transaction.status}`),
    ).toEqual([]);
    const completed = (type: string) =>
      outcomes.filter((transaction) => transaction.type === type && transaction.status === 'COMPLETED').length;
    expect(completed('OUTGOING')).toBe(acceptedOuts.length);
    expect(completed('INCOMING')).toBe(CONCURRENT_INS);

    const expected = FUNDING - completed('OUTGOING') * OUT_AMOUNT + completed('INCOMING') * IN_AMOUNT;
    expect(await balanceOf(customerId, usd)).toEqual([expected, expected]);
    expect(await lowestAvailable(stack, usd)).toBeGreaterThanOrEqual(0n);
  }, 120_000);

  it('completes all 32 when every transfer-out fits', async () => {
    const { customerId, usd } = await newCustomer();
    const bank = await bankAccount(customerId);
    const funding = CONCURRENT_OUTS * OUT_AMOUNT;
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth: platform, body: { amount: funding } })).status).toBe(
      200,
    );

    const replies = await Promise.all(Array.from({ length: CONCURRENT_OUTS }, () => move('/transfer-out', usd, bank, OUT_AMOUNT)));

    expect(serverErrors(replies)).toEqual([]);
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 201));
    const outcomes = await terminal(replies.map((reply) => reply.body.id as string));
    expect(outcomes.map((transaction) => transaction.status)).toEqual(outcomes.map(() => 'COMPLETED'));
    expect(await balanceOf(customerId, usd)).toEqual([0, 0]);
    expect(await lowestAvailable(stack, usd)).toBe(0n);
  }, 120_000);

  it('with a second accounts and payments process writing the same account, still queues or refuses each one, never a 5xx', async () => {
    await startReplica('accounts');
    await startReplica('payments');
    const { customerId, usd } = await newCustomer();
    const bank = await bankAccount(customerId);
    expect((await api.call('POST', `/sandbox/internal-accounts/${usd}/fund`, { auth: platform, body: { amount: FUNDING } })).status).toBe(
      200,
    );

    // Three rounds back to back, so both replicas' writers stay busy on the account and lose races to each other.
    const replies: Reply[] = [];
    for (let round = 0; round < 3; round += 1) {
      replies.push(
        ...(await Promise.all(Array.from({ length: CONCURRENT_OUTS }, () => move('/transfer-out', usd, bank, REPLICA_OUT_AMOUNT)))),
      );
    }

    expect(serverErrors(replies)).toEqual([]);
    const accepted = replies.filter((reply) => reply.status === 201);
    for (const refused of replies.filter((reply) => reply.status !== 201)) {
      expect(refused.body).toMatchObject({ status: 400, code: 'INVALID_AMOUNT', details: { reason: 'INSUFFICIENT_FUNDS' } });
    }
    expect(accepted.length * REPLICA_OUT_AMOUNT).toBeLessThanOrEqual(FUNDING);
    const outcomes = await terminal(accepted.map((reply) => reply.body.id as string));
    expect(outcomes.map((transaction) => transaction.status)).toEqual(outcomes.map(() => 'COMPLETED'));
    const expected = FUNDING - accepted.length * REPLICA_OUT_AMOUNT;
    expect(await balanceOf(customerId, usd)).toEqual([expected, expected]);
    expect(await lowestAvailable(stack, usd)).toBeGreaterThanOrEqual(0n);
  }, 180_000);

  it('leaves the books balanced', async () => {
    const summary = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' });
    expect(summary.postings).toBeGreaterThan(0);
  });
});
