// Pins down that the infra fixtures isolate tests and that a missing service fails with its start command.
import { Client } from 'pg';
import {
  createTestDatabase,
  createTestSchema,
  requireNats,
  requirePostgres,
  requireRedis,
  startCommands,
  uniqueRedisPrefix,
  uniqueSubjectPrefix,
} from './infra';

// Port 1 is never a database here, so these probes fail fast with "connection refused".
const closedPort = '127.0.0.1:1';

describe('infra fixtures', () => {
  it('reaches the local services', async () => {
    await expect(requirePostgres()).resolves.toContain('postgres://');
    await expect(requireNats()).resolves.toContain('nats://');
    await expect(requireRedis()).resolves.toContain('redis://');
  });

  it('names the service, URL and start command when a service is down', async () => {
    await expect(requirePostgres(`postgres://postgres@${closedPort}/postgres`)).rejects.toThrow(
      `PostgreSQL is not reachable at postgres://postgres@${closedPort}/postgres`,
    );
    await expect(requirePostgres(`postgres://postgres@${closedPort}/x`)).rejects.toThrow(startCommands.postgres);
    await expect(requireNats(`nats://${closedPort}`)).rejects.toThrow(startCommands.nats);
    await expect(requireRedis(`redis://${closedPort}`)).rejects.toThrow(startCommands.redis);
  });

  it('creates a usable database and drops it', async () => {
    const database = await createTestDatabase();
    expect(database.name).toMatch(/^corridor_t_[0-9a-f]{12}$/);
    const client = new Client({ connectionString: database.url });
    // The forced drop terminates this connection; the error event is the expected outcome here.
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ name: string }>('SELECT current_database() AS name');
    expect(rows[0]?.name).toBe(database.name);
    // drop() must succeed while this connection is still open (WITH (FORCE)).
    await database.drop();
    await client.end().catch(() => undefined);
    const admin = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    const left = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database.name]);
    await admin.end();
    expect(left.rowCount).toBe(0);
  });

  it('creates and drops a schema', async () => {
    const { schema, drop } = await createTestSchema();
    const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    try {
      const exists = () => client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect((await exists()).rowCount).toBe(1);
      await drop();
      expect((await exists()).rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('hands out distinct prefixes', () => {
    expect(uniqueSubjectPrefix()).not.toBe(uniqueSubjectPrefix());
    expect(uniqueSubjectPrefix()).toMatch(/^t[0-9a-f]{12}$/);
    expect(uniqueRedisPrefix()).toMatch(/^t[0-9a-f]{12}:$/);
  });
});
