// GET /transactions over NATS on real PostgreSQL, with rows written the way transfers write them
// (through the event store and the projections): keyset pages never skip or repeat a row even when
// many rows share one createdAt, in either order; totalCount is the per-platform counter when
// unfiltered, the per-(platform, status) counter when filtered on status alone, and an exact count
// when otherwise filtered; another platform's rows never appear.
import { Client } from 'pg';
import { newId, type Page, subjects, type TransactionWire } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createControllableClock, tokenContext, useServiceApp } from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { createTransfer } from '../transfers/create-transfer';
import { createTransferCommand } from '../transfers/transfer.fixtures';
import { transactionDecider } from './transaction';

// The clock never moves: every transaction below has the same createdAt, so only the id orders them.
const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const platformId = newId('Platform');
const strangerId = newId('Platform');

const payments = useServiceApp({
  service: 'payments',
  defaults: loadConfig({}),
  overrides: { transferSweepSeconds: 86_400, expirySweepSeconds: 86_400 },
  module: (config) => AppModule.register(config, clock),
});

const open = async (platform: string, internalAccountId: string): Promise<string> => {
  const transactionId = newId('Transaction');
  const command = createTransferCommand(
    { transactionId, platformId: platform, internal: { id: internalAccountId } },
    clock.now().toISOString(),
  );
  await payments.app
    .get(EventSourcing)
    .handle(transactionId, transactionDecider, (state) => createTransfer(command, state), tokenContext(platform), { assumeNew: true });
  return transactionId;
};

const list = (data: Record<string, unknown>, platform = platformId) =>
  payments.client.request<Page<TransactionWire>>(
    subjects.payments.transaction.list,
    { limit: 10, ...data },
    { context: tokenContext(platform), timeoutMs: 30_000 },
  );

const walk = async (data: Record<string, unknown>): Promise<string[]> => {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    const reply = await list({ ...data, ...(cursor ? { cursor } : {}) });
    seen.push(...reply.data.map((transaction) => transaction.id));
    if (!reply.hasMore) return seen;
    cursor = reply.nextCursor;
  }
  throw new Error('paging did not end');
};

const accountA = 'InternalAccount:01950000-0000-7000-8000-00000000000a';
const accountB = 'InternalAccount:01950000-0000-7000-8000-00000000000b';
let mine: string[] = [];

beforeAll(async () => {
  for (let index = 0; index < 25; index += 1) mine.push(await open(platformId, index % 5 === 0 ? accountB : accountA));
  for (let index = 0; index < 3; index += 1) await open(strangerId, accountA);
  mine = [...mine].sort();
});

describe('GET /transactions keyset paging and counts', () => {
  it('pages 25 rows sharing one createdAt in pages of 10, each once, ordered by id either way', async () => {
    expect(await walk({ sortOrder: 'asc' })).toEqual(mine);
    expect(await walk({ sortOrder: 'desc' })).toEqual([...mine].reverse());
  });

  it('answers totalCount from the platform counter unfiltered and by counting when filtered', async () => {
    expect((await list({})).totalCount).toBe(25);
    expect((await list({ accountIdentifier: accountB })).totalCount).toBe(5);
    expect((await list({ senderAccountIdentifier: accountA, limit: 100 })).data).toHaveLength(20);
    expect(await walk({ accountIdentifier: accountB, sortOrder: 'asc' })).toHaveLength(5);
  });

  it('answers a list filtered on status alone from the per-(platform, status) counter, exactly', async () => {
    const [first] = (await list({ limit: 1 })).data;
    const status = first?.status ?? 'none listed';
    expect((await list({ status })).totalCount).toBe(25);
    expect((await list({ status }, strangerId)).totalCount).toBe(3);
    expect((await list({ status: 'FAILED' })).totalCount).toBe(0);
    // The counter answers, not a count of the rows: moved behind the projection's back, the answer
    // moves with it (and a status with another filter is still counted). Put back afterwards.
    const admin = new Client({ connectionString: payments.databaseUrl });
    await admin.connect();
    const shift = (by: number) =>
      admin.query('UPDATE payments.transaction_status_counts SET count = count + $3 WHERE platform_id = $1 AND status = $2', [
        platformId,
        status,
        by,
      ]);
    try {
      await shift(1_000);
      expect((await list({ status })).totalCount).toBe(1_025);
      expect((await list({ status, accountIdentifier: accountA })).totalCount).toBe(20);
    } finally {
      await shift(-1_000);
      await admin.end();
    }
  });

  it('shows another platform only its own rows and counts', async () => {
    const theirs = await list({ limit: 100 }, strangerId);
    expect([theirs.totalCount, theirs.data.length]).toEqual([3, 3]);
    expect(theirs.data.some((transaction) => mine.includes(transaction.id))).toBe(false);
  });
});
