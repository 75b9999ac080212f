import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client, Pool } from 'pg';
import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { ensureEventStoreSchema } from './postgres-schema';
import { type Projection, type ProjectionRows, ProjectionRunner } from './projection-runner';
import type { EventStore, RecordedEvent } from './types';

// Pins down the projection runner: live rows equal rebuilt rows, waitFor gives read-your-writes,
// and rows and checkpoint commit together so a failed or repeated batch never double-applies.

type CounterRow = { id: string; count: number; lastAmount: string; tags: string[]; updatedAt: Date };

const CounterEntity = new EntitySchema<CounterRow>({
  name: 'CounterRow',
  tableName: 'counters',
  properties: {
    id: { type: 'string', primary: true },
    count: { type: 'integer' },
    lastAmount: { type: 'string' },
    tags: { type: 'json' },
    updatedAt: { type: 'Date' },
  },
});

const counters: Projection<CounterRow> = {
  name: 'counters',
  version: 1,
  canHandle: ['Counted', 'CounterDeleted'],
  entity: CounterEntity,
  keyOf: (event) => String(event.data['counterId']),
  evolve: (row, event) => {
    if (event.type === 'CounterDeleted') return null;
    return {
      id: String(event.data['counterId']),
      count: (row?.count ?? 0) + 1,
      lastAmount: String(event.data['amount']),
      tags: [...(row?.tags ?? []), String(event.data['tag'])],
      updatedAt: new Date(event.metadata.occurredAt),
    };
  },
};

/** The same table written by the projection itself: one SELECT and one set-based upsert per batch. */
const counterRows: ProjectionRows<CounterRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<{ id: string; count: number; last_amount: string; tags: string[]; updated_at: Date }>(
      `SELECT id, count, last_amount, tags, updated_at FROM ${sql.schema}.counters WHERE id = ANY($1::text[])`,
      [keys],
    );
    return new Map(
      rows.map((row) => [row.id, { id: row.id, count: row.count, lastAmount: row.last_amount, tags: row.tags, updatedAt: row.updated_at }]),
    );
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.counters (id, count, last_amount, tags, updated_at)
         SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::jsonb[], $5::timestamptz[])
         ON CONFLICT (id) DO UPDATE
         SET count = EXCLUDED.count, last_amount = EXCLUDED.last_amount, tags = EXCLUDED.tags, updated_at = EXCLUDED.updated_at`,
        [
          upserts.map((row) => row.id),
          upserts.map((row) => row.count),
          upserts.map((row) => row.lastAmount),
          upserts.map((row) => JSON.stringify(row.tags)),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.counters WHERE id = ANY($1::text[])`, [deletes]);
  },
};

const count = (store: EventStore, counterId: string, amount: string, tag = 'x') =>
  store.appendToStream(counterId, [{ type: 'Counted', data: { counterId, amount, tag } }], {
    expectedVersion: 'any',
    metadata: contractMetadata(),
  });

const lastPosition = (appended: { events: RecordedEvent[] }): bigint => appended.events[appended.events.length - 1]!.globalPosition;

// Every guarantee holds on each way a batch can be written: MikroORM's unit of work (the default),
// the projection's own set-based rows on a plain pg transaction, and its own rows inside a MikroORM
// transaction (a runner given no pool, as the replay script builds it).
describe.each([
  { title: 'MikroORM unit of work', ownRows: false, withPool: false },
  { title: 'own rows, plain pg transaction', ownRows: true, withPool: true },
  { title: 'own rows, MikroORM transaction', ownRows: true, withPool: false },
])('ProjectionRunner ($title)', ({ ownRows, withPool }) => {
  const database = useTestDatabase();
  const projection: Projection<CounterRow> = ownRows ? { ...counters, rows: counterRows } : counters;
  let pool: Pool | undefined;
  let testSchema: TestSchema;
  let schema: string;
  let store: EventStore;
  let orm: MikroORM;
  let admin: Client;
  const runners: ProjectionRunner[] = [];
  const errors: unknown[] = [];
  const logger = {
    info: () => undefined,
    warn: () => undefined,
    error: (details: Record<string, unknown>) => void errors.push(details['err']),
  };
  const newRunner = () => {
    const runner = new ProjectionRunner({
      store,
      orm,
      ...(pool ? { pool } : {}),
      schema,
      projections: [projection],
      batchSize: 4,
      pollIntervalMs: 20,
      haltRetryMs: 50,
      logger,
    });
    runners.push(runner);
    return runner;
  };
  const rows = async () =>
    (await admin.query(`SELECT id, count, last_amount, tags, updated_at FROM ${schema}.counters ORDER BY id`)).rows as unknown[];
  const checkpoint = async () =>
    BigInt((await admin.query(`SELECT position FROM ${schema}.projection_checkpoints WHERE name = 'counters'`)).rows[0].position);

  beforeAll(async () => {
    testSchema = await createTestSchema(database.url);
    schema = testSchema.schema;
    await ensureEventStoreSchema(database.url, schema);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `
      CREATE TABLE ${schema}.counters (id text PRIMARY KEY, count integer NOT NULL, last_amount text NOT NULL, tags jsonb NOT NULL, ` +
        `updated_at timestamptz NOT NULL);
      CREATE TABLE ${schema}.fail_switch (reason text);
      CREATE FUNCTION ${schema}.fail_when_switched() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM ${schema}.fail_switch) THEN RAISE EXCEPTION 'counters are switched off'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_when_switched BEFORE INSERT OR UPDATE ON ${schema}.counters
        FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_when_switched();`,
    );
    store = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 4 });
    orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema,
      entities: [CounterEntity],
      allowGlobalContext: false,
      debug: false,
      pool: { min: 0, max: 4 },
    });
    if (withPool) pool = new Pool({ connectionString: database.url, max: 2 });
  });

  afterAll(async () => {
    for (const runner of runners) await runner.stop();
    await orm?.close(true);
    await pool?.end();
    await store?.close();
    await admin?.end();
    await testSchema?.drop();
  });

  it('projects live, and a rebuild from zero yields the same rows', async () => {
    const [a, b, c] = [`Counter:${randomUUID()}`, `Counter:${randomUUID()}`, `Counter:${randomUUID()}`];
    await count(store, a, '1', 'first');
    await count(store, b, '2');
    await store.appendToStream('Other:1', [{ type: 'Ignored', data: { counterId: a } }], {
      expectedVersion: 'any',
      metadata: contractMetadata(),
    });
    await count(store, a, '3', 'second');
    await count(store, c, '4');
    await store.appendToStream(c, [{ type: 'CounterDeleted', data: { counterId: c } }], {
      expectedVersion: 'any',
      metadata: contractMetadata(),
    });
    const last = lastPosition(await count(store, b, '5'));

    const runner = newRunner();
    await runner.start();
    await runner.waitFor(last);
    const live = await rows();
    const byId = (id: string) => live.find((row) => (row as { id: string }).id === id);
    expect(live).toHaveLength(2);
    expect(byId(a)).toMatchObject({ count: 2, last_amount: '3', tags: ['first', 'second'] });
    expect(byId(b)).toMatchObject({ count: 2, last_amount: '5', tags: ['x', 'x'] });
    expect(byId(c)).toBeUndefined();
    expect(await checkpoint()).toBe(last);

    await runner.rebuild('counters');
    expect(await rows()).toEqual(live);
    expect(await checkpoint()).toBe(last);
  });

  it('resolves waitFor once the appended event is projected (read-your-writes)', async () => {
    const runner = runners[0]!;
    const counterId = `Counter:${randomUUID()}`;
    for (let round = 1; round <= 5; round += 1) {
      const appended = await count(store, counterId, String(round));
      await runner.waitFor(lastPosition(appended));
      const row = (await admin.query(`SELECT count FROM ${schema}.counters WHERE id = $1`, [counterId])).rows[0];
      expect(row).toEqual({ count: round });
    }
    const concurrent = await Promise.all([1, 2, 3].map((index) => count(store, `Counter:${randomUUID()}`, String(index))));
    await Promise.all(concurrent.map((appended) => runner.waitFor(lastPosition(appended))));
    for (const appended of concurrent) {
      const row = (await admin.query(`SELECT count FROM ${schema}.counters WHERE id = $1`, [appended.events[0]!.streamId])).rows[0];
      expect(row).toEqual({ count: 1 });
    }
    await expect(runner.waitFor((await store.headPosition()) + 1_000n, 100)).rejects.toThrow(/did not reach position/);
  });

  it('commits rows and checkpoint together: a failed batch changes neither, a retry and a second runner apply once', async () => {
    const runner = runners[0]!;
    const counterId = `Counter:${randomUUID()}`;
    await runner.waitFor(lastPosition(await count(store, counterId, '1')));
    const before = await checkpoint();
    const rowsBefore = await rows();

    await admin.query(`INSERT INTO ${schema}.fail_switch VALUES ('test')`);
    const failed = lastPosition(await count(store, counterId, '2'));
    errors.length = 0;
    runner.nudge();
    for (let attempt = 0; errors.length === 0 && attempt < 500; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(String(errors[0])).toMatch(/counters are switched off/);
    expect(await checkpoint()).toBe(before);
    expect(await rows()).toEqual(rowsBefore);
    // Halted on the event: a wait for it is refused at once, naming the read model.
    await expect(runner.waitFor(failed, 10_000)).rejects.toMatchObject({ code: 'READ_MODEL_HALTED', status: 503 });
    expect(runner.status().projections[0]).toMatchObject({
      name: 'counters',
      halted: true,
      lastError: { event: { position: failed.toString() } },
    });

    await admin.query(`DELETE FROM ${schema}.fail_switch`);
    for (let attempt = 0; runner.status().projections[0]!.halted && attempt < 500; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await runner.waitFor(failed, 10_000);
    const second = newRunner();
    await second.start();
    await second.waitFor(failed);
    await runner.waitFor(lastPosition(await count(store, counterId, '3')));
    await second.waitFor(await store.headPosition());
    const row = (await admin.query(`SELECT count, last_amount FROM ${schema}.counters WHERE id = $1`, [counterId])).rows[0];
    expect(row).toEqual({ count: 3, last_amount: '3' });
  });

  it('rebuilds a projection whose version changed when it starts', async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    const live = await rows();
    await admin.query(`UPDATE ${schema}.counters SET count = 999`);
    const bumped = new ProjectionRunner({
      store,
      orm,
      ...(pool ? { pool } : {}),
      schema,
      projections: [{ ...projection, version: 2 }],
      pollIntervalMs: 20,
      logger,
    });
    runners.push(bumped);
    await bumped.start();
    expect(await rows()).toEqual(live);
    const stored = await admin.query(`SELECT version FROM ${schema}.projection_checkpoints WHERE name = 'counters'`);
    expect(stored.rows[0]).toEqual({ version: 2 });
  });
});
