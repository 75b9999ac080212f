import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { createTestSchema, testUrls, useTestDatabase } from '@corridor/testing';
import { eventStoreContract, contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import type { EventStore } from './types';
import { ensureEventStoreSchema } from './postgres-schema';

const database = useTestDatabase();

// Runs the event store contract against the PostgreSQL adapter in a schema of its own.

eventStoreContract('PostgreSQL event store', async ({ upcasters }) => {
  const url = database.url;
  const testSchema = await createTestSchema(url);
  const { schema } = testSchema;
  await ensureEventStoreSchema(url, schema);
  // Idempotent: a second run (another process starting) changes nothing and does not fail.
  await Promise.all([ensureEventStoreSchema(url, schema), ensureEventStoreSchema(url, schema)]);
  const store = createPostgresEventStore({ connectionString: url, schema, upcasters, poolSize: 10 });
  const openClients = new Set<Client>();
  const neighbours: { store: EventStore; drop: () => Promise<void> }[] = [];
  return {
    store,
    // Another service: its own schema in the same database.
    openNeighbour: async () => {
      const other = await createTestSchema(url);
      const neighbour = createPostgresEventStore({ connectionString: url, schema: other.schema, upcasters, poolSize: 2 });
      neighbours.push({ store: neighbour, drop: other.drop });
      return neighbour;
    },
    // A plain pg transaction, outside the store, that inserts and then waits before committing.
    openSlowAppend: async (streamId) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      openClients.add(client);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ${schema}.events (event_id, stream_id, stream_position, type, data, metadata)
         VALUES ($1, $2, 1, 'ItemCreated', '{}', $3)`,
        [uuidv7(), streamId, JSON.stringify({ ...contractMetadata(), occurredAt: new Date().toISOString(), schemaVersion: 1 })],
      );
      return {
        commit: async () => {
          await client.query('COMMIT');
          openClients.delete(client);
          await client.end();
        },
      };
    },
    teardown: async () => {
      for (const client of openClients) await client.end();
      await store.close();
      await testSchema.drop();
      for (const neighbour of neighbours) {
        await neighbour.store.close();
        await neighbour.drop();
      }
    },
  };
});

describe('PostgreSQL event store horizon', () => {
  it('is not held back by a write transaction open in another database of the cluster', async () => {
    const url = database.url;
    const testSchema = await createTestSchema(url);
    const store = createPostgresEventStore({ connectionString: url, schema: testSchema.schema, poolSize: 2 });
    const elsewhereUrl = new URL(url);
    elsewhereUrl.pathname = elsewhereUrl.pathname === '/test' ? '/postgres' : '/test';
    const elsewhere = new Client({ connectionString: elsewhereUrl.toString() });
    await elsewhere.connect();
    try {
      const start = await store.headPosition();
      await elsewhere.query('BEGIN');
      await elsewhere.query('SELECT pg_current_xact_id()');
      const appended = await store.appendToStream('Item:elsewhere', [{ type: 'ItemCreated', data: {} }], {
        expectedVersion: 0,
        metadata: contractMetadata(),
      });
      // Other writers in this database may briefly hold the horizon; the open transaction elsewhere must not.
      let seen: unknown[] = [];
      for (let attempt = 0; seen.length === 0 && attempt < 500; attempt += 1) {
        seen = await store.readAll({ after: start, limit: 10 });
        if (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(seen).toEqual(appended.events);
      expect(await elsewhere.query('SELECT 1')).toBeTruthy();
      await elsewhere.query('COMMIT');
    } finally {
      await elsewhere.end();
      await store.close();
      await testSchema.drop();
    }
  });
});

describe('PostgreSQL event store options', () => {
  it('rejects a schema name that is not a plain identifier', () => {
    expect(() => createPostgresEventStore({ connectionString: testUrls.postgresAdmin(), schema: 'public; drop table x' })).toThrow(
      /Invalid schema name/,
    );
  });

  it('names the service, the URL and the start command when PostgreSQL is unreachable', async () => {
    const store = createPostgresEventStore({ connectionString: 'postgres://postgres@127.0.0.1:1/none', schema: 'unreachable' });
    await expect(store.readStream('Item:x')).rejects.toThrow(
      /PostgreSQL is unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/none.*pg_ctlcluster/,
    );
    await store.close();
  });
});
