import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client, Pool } from 'pg';
import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { ensureEventStoreSchema } from './postgres-schema';
import { type Projection, ProjectionRunner } from './projection-runner';
import { advisoryKey } from './sql-names';
import type { EventStore } from './types';

// Two replicas of one service (decision 0055): two runners on one schema, each with its own pool and
// store as two processes would have. Only the leader reads the store and applies; the follower's
// waiters still resolve once the leader applied their position, and the follower takes over when
// the leader stops or its session dies.

type TallyRow = { id: string; count: number };
const TallyEntity = new EntitySchema<TallyRow>({
  name: 'ReplicaTallyRow',
  tableName: 'tallies',
  properties: { id: { type: 'string', primary: true }, count: { type: 'integer' } },
});
const tallies: Projection<TallyRow> = {
  name: 'tallies',
  version: 1,
  canHandle: ['Counted', 'Poisoned'],
  entity: TallyEntity,
  keyOf: (event) => event.streamId,
  evolve: (row, event) => {
    if (event.type === 'Poisoned') throw new Error('tallies cannot apply Poisoned');
    return { id: event.streamId, count: (row?.count ?? 0) + 1 };
  },
};

type Replica = { runner: ProjectionRunner; reads: () => number; close: () => Promise<void> };

describe('ProjectionRunner replicas on one schema', () => {
  const database = useTestDatabase();
  let testSchema: TestSchema;
  let schema: string;
  let admin: Client;
  let writer: EventStore;
  const replicas: Replica[] = [];
  const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

  /** One replica: its own store (readAll counted), pool, ORM and runner, as a second process would have. */
  const replica = async (): Promise<Replica> => {
    const store = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 2 });
    let reads = 0;
    const counted: EventStore = { ...store, readAll: (options) => ((reads += 1), store.readAll(options)) };
    const pool = new Pool({ connectionString: database.url, max: 2 });
    const orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      schema,
      entities: [TallyEntity],
      allowGlobalContext: false,
      debug: false,
      pool: { min: 0, max: 2 },
    });
    const runner = new ProjectionRunner({
      store: counted,
      orm,
      pool,
      schema,
      projections: [tallies],
      pollIntervalMs: 100,
      haltRetryMs: 60_000,
      logger,
      connectionString: database.url,
    });
    await runner.start();
    const made = {
      runner,
      reads: () => reads,
      close: async () => {
        await runner.stop();
        await orm.close(true);
        await pool.end();
        await store.close();
      },
    };
    replicas.push(made);
    return made;
  };

  const append = async (streamId: string, type = 'Counted'): Promise<bigint> => {
    const { events } = await writer.appendToStream(streamId, [{ type, data: {} }], {
      expectedVersion: 'any',
      metadata: contractMetadata(),
    });
    return events[events.length - 1]!.globalPosition;
  };
  const tally = async (id: string): Promise<number | undefined> =>
    (await admin.query(`SELECT count FROM ${schema}.tallies WHERE id = $1`, [id])).rows[0]?.count as number | undefined;
  const eventually = async (check: () => boolean | Promise<boolean>, what: string): Promise<void> => {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`Not within 5 s: ${what}`);
  };

  beforeEach(async () => {
    testSchema = await createTestSchema(database.url);
    schema = testSchema.schema;
    await ensureEventStoreSchema(database.url, schema);
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`CREATE TABLE ${schema}.tallies (id text PRIMARY KEY, count integer NOT NULL)`);
    writer = createPostgresEventStore({ connectionString: database.url, schema, poolSize: 2 });
  });

  afterEach(async () => {
    for (const made of replicas.splice(0)) await made.close();
    await writer?.close();
    await admin?.end();
    await testSchema?.drop();
  });

  it('only the leader reads the store: the follower makes no readAll over 30 events', async () => {
    const leader = await replica();
    const follower = await replica();
    const streams = Array.from({ length: 30 }, () => `Tally:${randomUUID()}`);
    let last = 0n;
    for (const streamId of streams) last = await append(streamId);
    await leader.runner.waitFor(last);
    await follower.runner.waitFor(last);

    expect(follower.reads()).toBe(0);
    expect(leader.reads()).toBeGreaterThan(0);
    expect(leader.runner.status().leader).toBe(true);
    expect(follower.runner.status().leader).toBe(false);
    expect(await tally(streams[0]!)).toBe(1);
  });

  it('a waiter on the follower resolves once the leader applied its position, and the row is there', async () => {
    await replica();
    const follower = await replica();
    const streamId = `Tally:${randomUUID()}`;
    await append(streamId);
    const last = await append(streamId);

    await follower.runner.waitFor(last);

    expect(await tally(streamId)).toBe(2);
    expect(follower.reads()).toBe(0);
  });

  it('stopping the leader hands over: the follower leads and applies new events', async () => {
    const leader = await replica();
    const follower = await replica();
    const streamId = `Tally:${randomUUID()}`;
    await leader.runner.waitFor(await append(streamId));
    expect(follower.reads()).toBe(0);

    await leader.close();
    replicas.splice(replicas.indexOf(leader), 1);
    const last = await append(streamId);
    await follower.runner.waitFor(last);

    expect(follower.runner.status().leader).toBe(true);
    expect(follower.reads()).toBeGreaterThan(0);
    expect(await tally(streamId)).toBe(2);
  });

  it("the leader's session ending (a crash) hands over within about a poll interval", async () => {
    const leader = await replica();
    const follower = await replica();
    const streamId = `Tally:${randomUUID()}`;
    await leader.runner.waitFor(await append(streamId));
    // The backend holding the projection lock is the leader's session; killing it is what a kill -9 of the process does.
    const key = advisoryKey(`corridor.projections:${schema}`);
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted AND database = ` +
        `(SELECT oid FROM pg_database WHERE datname = current_database())`,
      [key],
    );

    const last = await append(streamId);
    await follower.runner.waitFor(last);
    expect(await tally(streamId)).toBe(2);
    expect([leader.runner.status().leader, follower.runner.status().leader].filter(Boolean)).toHaveLength(1);
  });

  it("a follower's status shows positions and a halt from the checkpoint rows, and refuses waits for the halted model", async () => {
    const leader = await replica();
    const follower = await replica();
    const streamId = `Tally:${randomUUID()}`;
    const counted = await append(streamId);
    await follower.runner.waitFor(counted);
    expect(follower.runner.status().projections).toEqual([{ name: 'tallies', position: counted.toString(), halted: false, failures: 0 }]);

    const poisoned = await append(streamId, 'Poisoned');
    await eventually(() => leader.runner.status().projections[0]!.halted, 'the leader halts on the poison event');
    await eventually(() => follower.runner.status().projections[0]!.halted, 'the follower shows the halt');

    expect(follower.runner.status().projections[0]).toMatchObject({
      position: counted.toString(),
      halted: true,
      lastError: { message: 'tallies cannot apply Poisoned', event: { position: poisoned.toString(), type: 'Poisoned', streamId } },
    });
    await expect(follower.runner.waitFor(poisoned)).rejects.toMatchObject({ code: 'READ_MODEL_HALTED' });
  });
});
