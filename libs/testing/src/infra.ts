import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { connect as connectNats } from 'nats';
import { Client } from 'pg';

// Integration tests use the machine's real PostgreSQL, NATS and Redis. When one is down the test
// must fail at once with the command that starts it, never hang or pass silently.

const CONNECT_TIMEOUT_MS = 3000;

export const startCommands = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile ' +
    '/var/log/redis/ci.log',
  nats:
    'start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd ' +
    '/var/lib/nats-server -l /var/log/nats-server.log',
} as const;

export const testUrls = {
  postgresAdmin: (): string => process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  nats: (): string => process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  redis: (): string => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

// Each URL is probed once per jest worker; later calls reuse the first answer.
const probes = new Map<string, Promise<string>>();

const probeOnce = (key: string, probe: () => Promise<void>, url: string): Promise<string> => {
  let pending = probes.get(key);
  if (!pending) {
    pending = probe().then(() => url);
    probes.set(key, pending);
  }
  return pending;
};

const unreachable = (service: string, url: string, command: string, cause: unknown): Error =>
  new Error(
    `${service} is not reachable at ${url} ` + `(${cause instanceof Error ? cause.message : String(cause)}). Start it with: ${command}`,
  );

export const requirePostgres = (url: string = testUrls.postgresAdmin()): Promise<string> =>
  probeOnce(
    `pg:${url}`,
    async () => {
      const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      try {
        await client.connect();
        await client.query('SELECT 1');
      } catch (error) {
        throw unreachable('PostgreSQL', url, startCommands.postgres, error);
      } finally {
        // The probe's own failure is thrown above with the start command; ending a client that never
        // connected has nothing more to say.
        await client.end().catch(() => undefined);
      }
    },
    url,
  );

export const requireNats = (url: string = testUrls.nats()): Promise<string> =>
  probeOnce(
    `nats:${url}`,
    async () => {
      let connection;
      try {
        connection = await connectNats({ servers: url, timeout: CONNECT_TIMEOUT_MS, reconnect: false });
      } catch (error) {
        throw unreachable('NATS', url, startCommands.nats, error);
      }
      try {
        // The event transport needs JetStream; a server started without -js answers core NATS only.
        const manager = await connection.jetstreamManager({ timeout: CONNECT_TIMEOUT_MS });
        await manager.getAccountInfo();
      } catch (error) {
        throw unreachable('NATS JetStream', url, `${startCommands.nats} (the server must run with -js)`, error);
      } finally {
        await connection.close();
      }
    },
    url,
  );

export const requireRedis = (url: string = testUrls.redis()): Promise<string> =>
  probeOnce(
    `redis:${url}`,
    async () => {
      const client = new Redis(url, {
        lazyConnect: true,
        connectTimeout: CONNECT_TIMEOUT_MS,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      // ioredis reports the real cause (e.g. ECONNREFUSED) only as an event; the rejection just says "closed".
      let cause: unknown;
      client.on('error', (error) => {
        cause = error;
      });
      try {
        await client.connect();
        await client.ping();
      } catch (error) {
        throw unreachable('Redis', url, startCommands.redis, cause ?? error);
      } finally {
        // Disconnecting an already ended client arms a 2 s timer that would keep jest alive.
        if (client.status !== 'end') client.disconnect();
      }
    },
    url,
  );

const randomSuffix = (): string => randomBytes(6).toString('hex');

/** A name unique to this test run, safe as a NATS subject token and a JetStream stream name. */
export const uniqueSubjectPrefix = (): string => `t${randomSuffix()}`;

/** A Redis key prefix unique to this test run (ends with ':'). */
export const uniqueRedisPrefix = (): string => `t${randomSuffix()}:`;

export type TestDatabase = { name: string; url: string; drop(): Promise<void> };

const withAdmin = async <T>(url: string, work: (client: Client) => Promise<T>): Promise<T> => {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** A fresh, empty database on the local server; drop() removes it even if pools are still open. */
export const createTestDatabase = async (adminUrl: string = testUrls.postgresAdmin(), prefix = 'corridor_t_'): Promise<TestDatabase> => {
  await requirePostgres(adminUrl);
  const name = `${prefix}${randomSuffix()}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
};

export type TestSchema = { schema: string; drop(): Promise<void> };

/** A fresh schema inside an existing database, for tests that share one database. */
export const createTestSchema = async (url: string = testUrls.postgresAdmin()): Promise<TestSchema> => {
  await requirePostgres(url);
  const schema = `t_${randomSuffix()}`;
  await withAdmin(url, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  return {
    schema,
    drop: async () => {
      await withAdmin(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
};

/**
 * A database of its own for one test file, created before its tests. Call it at the top of the
 * file. The event store's read horizon is per database, so a test that holds a write transaction
 * open (as the late-commit tests do on purpose) must not share its database with another file
 * running at the same time. The database is dropped by the run's global teardown
 * (`dropRunDatabases`), after every pool of every file is closed.
 */
export const useTestDatabase = (): { readonly url: string } => {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(testUrls.postgresAdmin(), `corridor_r${process.env['CORRIDOR_TEST_RUN'] ?? 'x'}_`);
  });
  return {
    get url(): string {
      if (!database) throw new Error('useTestDatabase(): the database exists only inside hooks and tests.');
      return database.url;
    },
  };
};

/** Drops every database useTestDatabase made in this run (jest global teardown). */
export const dropRunDatabases = async (run: string, adminUrl: string = testUrls.postgresAdmin()): Promise<void> => {
  await withAdmin(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [
      `corridor_r${run}\\_%`,
    ]);
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
};
