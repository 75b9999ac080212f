import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client, Pool } from 'pg';
import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import type { Logger } from './logger';
import { createPostgresEventStore } from './postgres-event-store';
import { ensureEventStoreSchema } from './postgres-schema';
import { type Projection, ProjectionRunner } from './projection-runner';
import type { EventStore } from './types';

// What the accounts service met under real traffic: a batch that mixed an event only MikroORM
// projects with a movement on an existing row of a plain-SQL projection failed on every retry,
// in silence, and held back every read model of the service. Here: such batches apply; a
// projection that cannot apply an event halts alone, loudly, and the others go on.

type TallyRow = { id: string; count: number };
type StampRow = { id: string; count: number; createdAt: Date; updatedAt: Date };

const TallyEntity = new EntitySchema<TallyRow>({
  name: 'TallyRow',
  tableName: 'tallies',
  properties: { id: { type: 'string', primary: true }, count: { type: 'integer' } },
});
const StampEntity = new EntitySchema<StampRow>({
  name: 'StampRow',
  tableName: 'stamps',
  properties: {
    id: { type: 'string', primary: true },
    count: { type: 'integer' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});
const PoisonEntity = new EntitySchema<TallyRow>({
  name: 'PoisonRow',
  tableName: 'poisoned',
  properties: { id: { type: 'string', primary: true }, count: { type: 'integer' } },
});

/** Projected through MikroORM's unit of work (no `rows`). */
const tallies: Projection<TallyRow> = {
  name: 'tallies',
  version: 1,
  canHandle: ['Counted'],
  entity: TallyEntity,
  keyOf: (event) => event.streamId,
  evolve: (row, event) => ({ id: event.streamId, count: (row?.count ?? 0) + 1 }),
};

/**
 * Plain SQL written the way the internal-accounts projection was: `load` hands over the columns as
 * the driver returns them and `save` calls toISOString on createdAt, which evolve keeps from `load`.
 */
const stamps: Projection<StampRow> = {
  name: 'stamps',
  version: 1,
  canHandle: ['Counted', 'Stamped'],
  entity: StampEntity,
  keyOf: (event) => event.streamId,
  evolve: (row, event) => {
    const at = new Date(event.metadata.occurredAt);
    return row ? { ...row, count: row.count + 1, updatedAt: at } : { id: event.streamId, count: 1, createdAt: at, updatedAt: at };
  },
  rows: {
    load: async (sql, keys) => {
      const rows = await sql.query<{ id: string; count: number; created_at: Date; updated_at: Date }>(
        `SELECT id, count, created_at, updated_at FROM ${sql.schema}.stamps WHERE id = ANY($1::text[])`,
        [keys],
      );
      return new Map(rows.map((row) => [row.id, { id: row.id, count: row.count, createdAt: row.created_at, updatedAt: row.updated_at }]));
    },
    save: async (sql, { upserts }) => {
      if (upserts.length === 0) return;
      await sql.query(
        `INSERT INTO ${sql.schema}.stamps (id, count, created_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::integer[], $3::timestamptz[], $4::timestamptz[])
         ON CONFLICT (id) DO UPDATE SET count = EXCLUDED.count, created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at`,
        [
          upserts.map((row) => row.id),
          upserts.map((row) => row.count),
          upserts.map((row) => row.createdAt.toISOString()),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    },
  },
};

/** A projection with a bug: it cannot apply a Counted event that carries `poison`. */
const poisoned: Projection<TallyRow> = {
  name: 'poisoned',
  version: 1,
  canHandle: ['Counted'],
  entity: PoisonEntity,
  keyOf: (event) => event.streamId,
  evolve: (row, event) => {
    if (event.data['poison']) throw new TypeError('row.createdAt.toISOString is not a function');
    return { id: event.streamId, count: (row?.count ?? 0) + 1 };
  },
};

describe('ProjectionRunner under mixed and poisoned batches', () => {
  const database = useTestDatabase();
  let testSchema: TestSchema;
  let schema: string;
  let store: EventStore;
  let orm: MikroORM;
  let pool: Pool;
  let admin: Client;
  const runners: ProjectionRunner[] = [];
  const logged: { level: string; details: Record<string, unknown>; message?: string }[] = [];
  const logger: Logger = {
    info: (details, message) => void logged.push({ level: 'info', details, ...(message ? { message } : {}) }),
    warn: (details, message) => void logged.push({ level: 'warn', details, ...(message ? { message } : {}) }),
    error: (details, message) => void logged.push({ level: 'error', details, ...(message ? { message } : {}) }),
  };
  const newRunner = (projections: Projection<any>[]) => {
    const runner = new ProjectionRunner({
      store,
      orm,
      pool,
      schema,
      projections,
      batchSize: 100,
      pollIntervalMs: 20,
      haltRetryMs: 60_000,
      logger,
      service: 'test',
    });
    runners.push(runner);
    return runner;
  };
  const count = (streamId: string, data: Record<string, unknown> = {}, type = 'Counted') =>
    store.appendToStream(streamId, [{ type, data }], { expectedVersion: 'any', metadata: contractMetadata() });

  beforeAll(async () => {
    testSchema = await createTestSchema(database.url);
    schema = testSchema.schema;
    await ensureEventStoreSchema(database.url, schema);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `
      CREATE TABLE ${schema}.tallies (id text PRIMARY KEY, count integer NOT NULL);
      CREATE TABLE ${schema}.poisoned (id text PRIMARY KEY, count integer NOT NULL);
      CREATE TABLE ${schema}.stamps (id text PRIMARY KEY, count integer NOT NULL, created_at timestamptz NOT NULL, updated_at ` +
        `timestamptz NOT NULL);`,
    );
    store = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 4 });
    orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema,
      entities: [TallyEntity, StampEntity, PoisonEntity],
      allowGlobalContext: false,
      debug: false,
      pool: { min: 0, max: 2 },
    });
    pool = new Pool({ connectionString: database.url, max: 3 });
  });

  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop();
    await admin.query(
      `DELETE FROM ${schema}.projection_checkpoints; DELETE FROM ${schema}.tallies; DELETE FROM ${schema}.stamps;
       DELETE FROM ${schema}.poisoned; DELETE FROM ${schema}.events`,
    );
    logged.length = 0;
  });

  afterAll(async () => {
    await orm?.close(true);
    await pool?.end();
    await store?.close();
    await admin?.end();
    await testSchema?.drop();
  });

  it('applies a batch that mixes a MikroORM projection with a movement on an existing plain-SQL row', async () => {
    const runner = newRunner([tallies, stamps]);
    await runner.start();
    const streamId = `Thing:${randomUUID()}`;
    // The row exists first, on its own (a plain batch: only `stamps` handles Stamped).
    const first = await count(streamId, {}, 'Stamped');
    await runner.waitFor(first.events[0]!.globalPosition);
    const created = (await admin.query(`SELECT created_at FROM ${schema}.stamps WHERE id = $1`, [streamId])).rows[0].created_at as Date;
    // This batch needs MikroORM (tallies) and moves the existing stamps row: the poison of the report.
    const second = await count(streamId);
    await runner.waitFor(second.events[0]!.globalPosition, 5_000);
    const row = (await admin.query(`SELECT count, created_at FROM ${schema}.stamps WHERE id = $1`, [streamId])).rows[0];
    expect(row).toEqual({ count: 2, created_at: created });
    expect((await admin.query(`SELECT count FROM ${schema}.tallies WHERE id = $1`, [streamId])).rows[0]).toEqual({ count: 1 });
    expect(logged.filter((entry) => entry.level !== 'info')).toEqual([]);
  });

  it('halts only the projection that cannot apply an event, says so loudly, and lets the others move on', async () => {
    const runner = newRunner([tallies, poisoned]);
    await runner.start();
    const healthy = `Thing:${randomUUID()}`;
    const victim = `Thing:${randomUUID()}`;
    await count(healthy);
    await count(victim);
    const poison = (await count(victim, { poison: true })).events[0]!;
    let head = poison.globalPosition;
    for (let round = 0; round < 5; round += 1) head = (await count(healthy)).events[0]!.globalPosition;
    // The last event's own position, not store.headPosition(): the head a reader may trust stops
    // below any transaction still open in the database (the runner's own batch, catching up as the
    // events arrive), so it could lag the events appended here while the runner got past it.

    // The healthy read model reaches the head; a wait that needs the halted one is refused at once.
    await runner.waitFor(head, 5_000, ['tallies']);
    expect((await admin.query(`SELECT count FROM ${schema}.tallies WHERE id = $1`, [healthy])).rows[0]).toEqual({ count: 6 });
    const refusedAt = Date.now();
    await expect(runner.waitFor(head, 5_000)).rejects.toMatchObject({
      code: 'READ_MODEL_HALTED',
      status: 503,
      message: expect.stringMatching(/read model poisoned is halted on Counted of Thing:.* \(position \d+\)/),
    });
    expect(Date.now() - refusedAt).toBeLessThan(1_000);

    // It applied everything before the poison event and stops exactly there.
    expect((await admin.query(`SELECT count FROM ${schema}.poisoned WHERE id = $1`, [victim])).rows[0]).toEqual({ count: 1 });
    const checkpoint = (
      await admin.query(
        `SELECT position, halted_at, last_error, last_error_event FROM ${schema}.projection_checkpoints WHERE name = 'poisoned'`,
      )
    ).rows[0];
    expect(BigInt(checkpoint.position)).toBe(poison.globalPosition - 1n);
    expect(checkpoint.halted_at).toBeInstanceOf(Date);
    expect(checkpoint.last_error).toBe('row.createdAt.toISOString is not a function');
    expect(checkpoint.last_error_event).toMatchObject({ position: poison.globalPosition.toString(), streamId: victim, type: 'Counted' });

    // The log names the projection, the event (position, stream, type) and the cause.
    const halt = logged.find((entry) => entry.level === 'error' && entry.details['projection'] === 'poisoned');
    expect(halt?.details).toMatchObject({
      projection: 'poisoned',
      position: poison.globalPosition.toString(),
      streamId: victim,
      eventType: 'Counted',
      eventId: poison.eventId,
    });
    expect(String(halt?.details['err'])).toMatch(/toISOString is not a function/);

    expect(runner.status().projections).toEqual([
      { name: 'tallies', position: head.toString(), halted: false, failures: 0 },
      expect.objectContaining({
        name: 'poisoned',
        halted: true,
        failures: 1,
        lastError: expect.objectContaining({ event: expect.objectContaining({ streamId: victim }) }),
      }),
    ]);
    const metrics = await runner.metrics.metrics();
    expect(metrics).toContain('corridor_projection_halted{service="test",projection="poisoned"} 1');
    expect(metrics).toContain('corridor_projection_halted{service="test",projection="tallies"} 0');
    expect(metrics).toMatch(/corridor_projection_lag_events\{service="test",projection="poisoned"\} [1-9]/);

    // A new event for the healthy read model still arrives while the other stays halted.
    const later = await count(healthy);
    await runner.waitFor(later.events[0]!.globalPosition, 5_000, ['tallies']);
  });

  it('a rebuild that meets the poison event fails with its cause instead of spinning', async () => {
    const runner = newRunner([poisoned]);
    const victim = `Thing:${randomUUID()}`;
    await count(victim);
    await count(victim, { poison: true });
    await expect(runner.rebuild('poisoned')).rejects.toMatchObject({ code: 'READ_MODEL_HALTED' });
  });
});
