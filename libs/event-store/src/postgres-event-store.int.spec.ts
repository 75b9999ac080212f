import { Client } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { createTestSchema, testUrls } from '@corridor/testing';
import { eventStoreContract, contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { ensureEventStoreSchema } from './postgres-schema';

// Runs the event store contract against the PostgreSQL adapter in a schema of its own.

eventStoreContract('PostgreSQL event store', async ({ upcasters }) => {
  const url = testUrls.postgresAdmin();
  const testSchema = await createTestSchema(url);
  const { schema } = testSchema;
  await ensureEventStoreSchema(url, schema);
  // Idempotent: a second run (another process starting) changes nothing and does not fail.
  await Promise.all([ensureEventStoreSchema(url, schema), ensureEventStoreSchema(url, schema)]);
  const store = createPostgresEventStore({ connectionString: url, schema, upcasters, poolSize: 10 });
  const openClients = new Set<Client>();
  return {
    store,
    // A plain pg transaction, outside the store, that inserts and then waits before committing.
    openSlowAppend: async (streamId) => {
      const client = new Client({ connectionString: url });
      await client.connect();
      openClients.add(client);
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO ${schema}.events (event_id, stream_id, stream_position, type, data, metadata) VALUES ($1, $2, 1, 'ItemCreated', '{}', $3)`,
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
    },
  };
});

describe('PostgreSQL event store options', () => {
  it('rejects a schema name that is not a plain identifier', () => {
    expect(() => createPostgresEventStore({ connectionString: testUrls.postgresAdmin(), schema: 'public; drop table x' })).toThrow(
      /Invalid schema name/,
    );
  });

  it('names the service, the URL and the start command when PostgreSQL is unreachable', async () => {
    const store = createPostgresEventStore({ connectionString: 'postgres://postgres@127.0.0.1:1/none', schema: 'unreachable' });
    await expect(store.readStream('Item:x')).rejects.toThrow(/PostgreSQL is unreachable at postgres:\/\/postgres@127\.0\.0\.1:1\/none.*pg_ctlcluster/);
    await store.close();
  });
});
