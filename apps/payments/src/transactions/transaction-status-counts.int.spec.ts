// The per-(platform, status) counters on real PostgreSQL, kept by the transactions projection as
// the service runs it: transactions driven through several statuses, several changes of one
// transaction in one batch, two runners at once, a rebuild in place and a shadow rebuild; after
// each, every counter equals count(*) of the rows in its platform and status (decision 0052).
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  createPostgresEventStore,
  createShadowRebuild,
  ensureEventStoreSchema,
  type EventStore,
  migrate,
  ProjectionRunner,
} from '@corridor/event-store';
import { useTestDatabase } from '@corridor/testing';
import { transactionViewProjection } from './transaction-view.projection';

const schema = 'payments';
const platformA = 'Platform:0190c0de-0000-7000-8000-00000000000a';
const platformB = 'Platform:0190c0de-0000-7000-8000-00000000000b';
/** Even transactions belong to A, odd ones to B. */
const platformOf = (index: number): string => (index % 2 === 0 ? platformA : platformB);
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The record every event of a Transaction stream carries: the transaction after it. */
const record = (id: string, platformId: string, status: string) => ({
  id,
  platformId,
  customerId: 'Customer:1',
  platformCustomerId: 'c1',
  type: 'OUTGOING',
  status,
  source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:1' },
  destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:1' },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
});

type Status = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

const typeOf: Record<Status, string> = {
  PENDING: 'TransferCreated',
  PROCESSING: 'TransferSubmitted',
  COMPLETED: 'TransferCompleted',
  FAILED: 'TransferFailed',
};

describe('transaction status counters', () => {
  const database = useTestDatabase();
  let store: EventStore;
  let orm: MikroORM;
  let admin: Client;
  const runners: ProjectionRunner[] = [];
  /** The runner that runs throughout, as a service's does. */
  let first: ProjectionRunner;

  const runner = async (): Promise<ProjectionRunner> => {
    const started = new ProjectionRunner({
      store,
      orm,
      schema,
      projections: [transactionViewProjection],
      batchSize: 7,
      pollIntervalMs: 5,
      logger,
    });
    runners.push(started);
    await started.start();
    return started;
  };

  /** Appends the transaction's next statuses, each event carrying the record after it; returns the last position. */
  const move = async (id: string, platformId: string, statuses: Status[]): Promise<bigint> => {
    const events = statuses.map((status) => ({ type: typeOf[status], data: { transaction: record(id, platformId, status) } }));
    const metadata = { platformId, correlationId: randomUUID(), requestId: randomUUID(), actor: { kind: 'system' as const, name: 'test' } };
    const appended = await store.appendToStream(id, events, { expectedVersion: 'any', metadata });
    return appended.events.at(-1)?.globalPosition ?? 0n;
  };

  /** Every non-zero counter against count(*) of the rows, per platform and status. */
  const countersAndRows = async () => {
    const counters = await admin.query<{ key: string; count: string }>(
      `SELECT platform_id || '/' || status AS key, count::text FROM ${schema}.transaction_status_counts WHERE count <> 0 ORDER BY 1`,
    );
    const rows = await admin.query<{ key: string; count: string }>(
      `SELECT platform_id || '/' || status AS key, count(*)::text AS count FROM ${schema}.transactions GROUP BY 1 ORDER BY 1`,
    );
    return { counters: counters.rows, rows: rows.rows };
  };

  const expectExact = async (expected: Record<string, number>) => {
    const { counters, rows } = await countersAndRows();
    expect(counters).toEqual(rows);
    expect(Object.fromEntries(counters.map((counter) => [counter.key, Number(counter.count)]))).toEqual(expected);
  };

  beforeAll(async () => {
    await ensureEventStoreSchema(database.url, schema);
    await migrate({ connectionString: database.url, schema, directory: join(__dirname, '..', 'migrations') });
    store = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 4 });
    orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema,
      entities: [transactionViewProjection.entity],
      allowGlobalContext: false,
      pool: { min: 0, max: 4 },
    });
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  afterAll(async () => {
    for (const started of runners) await started.stop();
    await orm?.close(true);
    await store?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema}_shadow CASCADE; DROP SCHEMA IF EXISTS ${schema}_retired CASCADE`);
    await admin?.end();
  });

  it('given transactions moved through several statuses, several in one batch, when projected, then each counter is count(*)', async () => {
    // Appended before any runner starts: a batch folds several events of one transaction.
    for (let index = 0; index < 12; index += 1) {
      const statuses: Status[] = ['PENDING', 'PROCESSING', 'COMPLETED'].slice(0, (index % 3) + 1) as Status[];
      await move(`Transaction:${String(index).padStart(2, '0')}`, platformOf(index), statuses);
    }
    first = await runner();
    await first.waitFor(await store.headPosition());
    await expectExact({
      [`${platformA}/PENDING`]: 2,
      [`${platformA}/PROCESSING`]: 2,
      [`${platformA}/COMPLETED`]: 2,
      [`${platformB}/PENDING`]: 2,
      [`${platformB}/PROCESSING`]: 2,
      [`${platformB}/COMPLETED`]: 2,
    });
  });

  it('given two runners at once, when statuses keep changing, then no change is counted twice or lost', async () => {
    const second = await runner();
    let last = 0n;
    // Every PENDING and PROCESSING transaction moves on, one event at a time, while both runners poll.
    for (let index = 0; index < 12; index += 1) {
      const id = `Transaction:${String(index).padStart(2, '0')}`;
      if (index % 3 === 0) last = await move(id, platformOf(index), ['PROCESSING']);
      if (index % 3 !== 2) last = await move(id, platformOf(index), [index % 2 === 0 ? 'FAILED' : 'COMPLETED']);
      // A status that changes back and forth within the run (a status the read model only passes through).
      if (index === 4) last = await move(id, platformA, ['PROCESSING', 'COMPLETED']);
    }
    await Promise.all(runners.map((started) => started.waitFor(last)));
    await expectExact({
      [`${platformA}/COMPLETED`]: 3,
      [`${platformA}/FAILED`]: 3,
      [`${platformB}/COMPLETED`]: 6,
    });
    await second.stop();
  });

  it('given a rebuild in place, when replayed, then the counters are rebuilt with the rows, not added to', async () => {
    await first.rebuild('transactions');
    await expectExact({
      [`${platformA}/COMPLETED`]: 3,
      [`${platformA}/FAILED`]: 3,
      [`${platformB}/COMPLETED`]: 6,
    });
  });

  it('given a corrupted counter, when a shadow rebuild is built and swapped, then the counters come back exact with the rows', async () => {
    await admin.query(`UPDATE ${schema}.transaction_status_counts SET count = 999 WHERE platform_id = $1 AND status = 'FAILED'`, [
      platformA,
    ]);
    const shadow = await createShadowRebuild({
      connectionString: database.url,
      store,
      schema,
      projection: transactionViewProjection,
      logger,
    });
    try {
      await shadow.build();
      await shadow.swap();
    } finally {
      await shadow.close();
    }
    // The live runner goes on over the swapped tables: a later change moves the rebuilt counters.
    await first.waitFor(await move('Transaction:03', platformB, ['FAILED']));
    await expectExact({
      [`${platformA}/COMPLETED`]: 3,
      [`${platformA}/FAILED`]: 3,
      [`${platformB}/COMPLETED`]: 5,
      [`${platformB}/FAILED`]: 1,
    });
    const retired = await admin.query(`SELECT count::int FROM ${schema}_retired.transaction_status_counts WHERE count = 999`);
    expect(retired.rows).toEqual([{ count: 999 }]);
  });
});
