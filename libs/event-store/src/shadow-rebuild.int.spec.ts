import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { ensureEventStoreSchema } from './postgres-schema';
import { type Projection, type ProjectionRows, ProjectionRunner } from './projection-runner';
import { createShadowRebuild, differingColumns, type ShadowProgress } from './shadow-rebuild';
import type { EventStore } from './types';

// A shadow rebuild against real PostgreSQL, with the live projection running and events arriving
// throughout: the live table never misses a row, the diff names each deliberately corrupted row,
// and the swap puts the corrected rows in place without losing or doubling an event that arrived
// during the rebuild.

type TallyRow = { id: string; count: number; tags: string[] };

const TallyEntity = new EntitySchema<TallyRow>({
  name: 'ShadowTallyRow',
  tableName: 'tallies',
  properties: { id: { type: 'string', primary: true }, count: { type: 'integer' }, tags: { type: 'json' } },
});

const talliesOrm: Projection<TallyRow> = {
  name: 'tallies',
  version: 1,
  canHandle: ['Counted'],
  entity: TallyEntity,
  keyOf: (event) => String(event.data['tallyId']),
  evolve: (row, event) => ({
    id: String(event.data['tallyId']),
    // Not idempotent on purpose: an event applied twice or lost shows as a wrong count.
    count: (row?.count ?? 0) + 1,
    tags: [...(row?.tags ?? []), String(event.data['tag'])].slice(-3),
  }),
};

/** The same table written by the projection's own SQL (as quotes and transactions are): `sql.schema` must be the shadow's. */
const tallyRows: ProjectionRows<TallyRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<TallyRow>(`SELECT id, count, tags FROM ${sql.schema}.tallies WHERE id = ANY($1::text[])`, [keys]);
    return new Map(rows.map((row) => [row.id, row]));
  },
  save: async (sql, { upserts, deletes }) => {
    await sql.query(
      `INSERT INTO ${sql.schema}.tallies (id, count, tags) SELECT * FROM unnest($1::text[], $2::integer[], $3::jsonb[])
       ON CONFLICT (id) DO UPDATE SET count = EXCLUDED.count, tags = EXCLUDED.tags`,
      [upserts.map((row) => row.id), upserts.map((row) => row.count), upserts.map((row) => JSON.stringify(row.tags))],
    );
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.tallies WHERE id = ANY($1::text[])`, [deletes]);
  },
};

describe.each([
  { title: 'MikroORM unit of work', ownRows: false },
  { title: 'own rows', ownRows: true },
])('shadow rebuild ($title)', ({ ownRows }) => {
  const database = useTestDatabase();
  const tallies: Projection<TallyRow> = ownRows ? { ...talliesOrm, rows: tallyRows } : talliesOrm;
  let testSchema: TestSchema;
  let schema: string;
  let store: EventStore;
  let orm: MikroORM;
  let admin: Client;
  let live: ProjectionRunner;
  const expected = new Map<string, number>();
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

  const count = async (tallyId: string, tag = 'x') => {
    const appended = await store.appendToStream(`Tally:${tallyId}`, [{ type: 'Counted', data: { tallyId, tag } }], {
      expectedVersion: 'any',
      metadata: contractMetadata(),
    });
    expected.set(tallyId, (expected.get(tallyId) ?? 0) + 1);
    return appended.events[0]!.globalPosition;
  };
  const liveRows = async () => (await admin.query<TallyRow>(`SELECT id, count, tags FROM ${schema}.tallies ORDER BY id`)).rows;

  beforeAll(async () => {
    testSchema = await createTestSchema(database.url);
    schema = testSchema.schema;
    await ensureEventStoreSchema(database.url, schema);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`CREATE TABLE ${schema}.tallies (id text PRIMARY KEY, count integer NOT NULL CHECK (count > 0), tags jsonb NOT NULL);
      CREATE INDEX tallies_count_index ON ${schema}.tallies (count)`);
    store = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 4 });
    orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema,
      entities: [TallyEntity],
      allowGlobalContext: false,
      pool: { min: 0, max: 4 },
    });
    live = new ProjectionRunner({ store, orm, schema, projections: [tallies], batchSize: 50, pollIntervalMs: 10, logger });
    await live.start();
  });

  afterAll(async () => {
    await live?.stop();
    await orm?.close(true);
    await store?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema}_shadow CASCADE; DROP SCHEMA IF EXISTS ${schema}_retired CASCADE`);
    await admin?.end();
    await testSchema?.drop();
  });

  it('builds beside the live table, names every corrupted row, and swaps in the corrected rows without losing an event', async () => {
    let last = 0n;
    for (let index = 0; index < 400; index += 1) last = await count(`t-${String(index % 40).padStart(2, '0')}`, `tag-${index}`);
    await live.waitFor(last);
    // One row corrupted in each way a read model can go wrong.
    await admin.query(`UPDATE ${schema}.tallies SET count = 999 WHERE id = 't-07'`);
    await admin.query(`DELETE FROM ${schema}.tallies WHERE id = 't-09'`);
    await admin.query(`INSERT INTO ${schema}.tallies (id, count, tags) VALUES ('ghost', 1, '[]')`);
    // The extra row is one the swap rightly removes; every other row must be served throughout.
    const servedBefore = (await liveRows()).map((row) => row.id).filter((id) => id !== 'ghost');

    // A reader that must always find every row it found before, and a writer that keeps the live
    // projection moving (new tallies only: the corrupted rows stay as they are until the swap).
    let running = true;
    const misses: string[] = [];
    let reads = 0;
    const reader = (async () => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      while (running) {
        const seen = new Set((await client.query<{ id: string }>(`SELECT id FROM ${schema}.tallies`)).rows.map((row) => row.id));
        reads += 1;
        for (const id of servedBefore) if (!seen.has(id)) misses.push(id);
      }
      await client.end();
    })();
    let written = 0;
    const writer = (async () => {
      while (running) {
        await count(`late-${written % 7}`, `late-${written}`);
        written += 1;
      }
    })();

    const progress: ShadowProgress[] = [];
    const onProgress = (step: ShadowProgress) => void progress.push(step);
    const options = { connectionString: database.url, store, schema, projection: tallies, logger, batchSize: 25, onProgress };
    const shadow = await createShadowRebuild(options);
    try {
      const builtAt = await shadow.build();
      expect(builtAt).toBeGreaterThanOrEqual(last);
      const diff = await shadow.compare();
      expect(diff.counts).toEqual({ missing: 1, extra: 1, different: 1 });
      expect(diff.examples.missing.map((row) => row.key)).toEqual(['t-09']);
      expect(diff.examples.extra.map((row) => row.key)).toEqual(['ghost']);
      expect(diff.examples.different).toEqual([
        { key: 't-07', live: expect.objectContaining({ count: 999 }), rebuilt: expect.objectContaining({ count: 10 }), columns: ['count'] },
      ]);
      expect(diff.rebuiltRows).toBe(diff.liveRows);
      // Live reads went on during the build and the comparison, and never missed a row.
      while (reads < 3) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(misses).toEqual([]);

      const { position } = await shadow.swap();
      expect(position).toBeGreaterThan(last);
    } finally {
      running = false;
      await Promise.all([reader, writer]);
      await shadow.close();
    }
    expect(misses).toEqual([]);
    expect(written).toBeGreaterThan(0);

    // The live runner goes on from the swapped table: every event counted exactly once.
    await live.waitFor(await store.headPosition());
    const rows = await liveRows();
    expect(Object.fromEntries(rows.map((row) => [row.id, row.count]))).toEqual(Object.fromEntries(expected));
    expect(rows.find((row) => row.id === 't-07')!.count).toBe(10);
    // The replaced table is kept, corruption and all, until the next swap.
    const kept = await admin.query(`SELECT count FROM ${schema}_retired.tallies WHERE id = 't-07'`);
    expect(kept.rows).toEqual([{ count: 999 }]);
    // Keys, checks and indexes keep their names, so later migrations still find them.
    const indexes = await admin.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'tallies' ORDER BY 1`, [
      schema,
    ]);
    expect(indexes.rows.map((row) => row.indexname)).toEqual(['tallies_count_index', 'tallies_pkey']);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress[progress.length - 1]!.position).toBe(progress[progress.length - 1]!.target);
  });

  it('refuses to swap without a shadow, and says how to build one', async () => {
    const shadow = await createShadowRebuild({ connectionString: database.url, store, schema, projection: tallies, logger });
    try {
      await expect(shadow.swap()).rejects.toThrow(/No shadow of tallies .* build one first with --shadow/);
    } finally {
      await shadow.close();
    }
  });
});

describe('differingColumns', () => {
  it('given two versions of a row, when compared, then names the top-level columns that differ', () => {
    expect(differingColumns({ id: 'a', count: 1, tags: ['x'] }, { id: 'a', count: 2, tags: ['x'] })).toEqual(['count']);
    expect(differingColumns({ id: 'a', tags: ['x'] }, { id: 'a', tags: ['y'], extra: true })).toEqual(['extra', 'tags']);
    expect(differingColumns(null, { id: 'a' })).toEqual([]);
  });
});
