import type { Clock } from '@corridor/contracts';
import { type NatsAuth, parseNatsAuth } from './nats-auth';
import { parseShutdownTimeoutMs } from './shutdown';
import { parseClock, TEST_CLOCK_FILE } from './test-clock';

// What every NATS service reads from its environment. Each app's config.ts calls this once with
// process.env and its own defaults; nothing else reads the environment.
export type ServiceConfig = {
  databaseUrl: string;
  natsUrl: string;
  /** NATS_USER / NATS_PASSWORD / NATS_TLS*: the process's own bus credentials (decision 0025). */
  natsAuth: NatsAuth;
  subjectPrefix: string;
  healthPort: number;
  schema: string;
  logLevel: string;
  /** DATABASE_POOL_SIZE: PostgreSQL connections one process may hold in all (see EventSourcing's connectionBudget). */
  databasePoolSize: number;
  /** SHUTDOWN_TIMEOUT_MS: after SIGTERM, the process exits with code 1 if closing takes longer. */
  shutdownTimeoutMs: number;
  /** The system clock, or with CORRIDOR_TEST_CLOCK_FILE (never in production) a test stack's shared clock. */
  clock: Clock;
  /** CORRIDOR_TEST_CLOCK_FILE when set: runService warns at start that domain time may run ahead. */
  testClockFile: string | undefined;
};

const port = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65_535) throw new Error(`${name} must be a port number, got "${value}".`);
  return parsed;
};

const poolSize = (value: string | undefined): number => {
  // The same default as EventSourcing's DEFAULT_DATABASE_POOL_SIZE (libs/messaging cannot import it).
  if (value === undefined || value === '') return 6;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 4 || parsed > 200) {
    throw new Error(`DATABASE_POOL_SIZE must be a whole number from 4 to 200 (connections per process), got "${value}".`);
  }
  return parsed;
};

export const parseServiceConfig = (env: NodeJS.ProcessEnv, defaults: { schema: string; healthPort: number }): ServiceConfig => ({
  databaseUrl: env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/corridor',
  natsUrl: env['NATS_URL'] || 'nats://127.0.0.1:4222',
  natsAuth: parseNatsAuth(env),
  subjectPrefix: env['CORRIDOR_SUBJECT_PREFIX'] || 'corridor',
  healthPort: port('HEALTH_PORT', env['HEALTH_PORT'], defaults.healthPort),
  schema: defaults.schema,
  logLevel: env['LOG_LEVEL'] || 'info',
  databasePoolSize: poolSize(env['DATABASE_POOL_SIZE']),
  shutdownTimeoutMs: parseShutdownTimeoutMs(env),
  clock: parseClock(env),
  testClockFile: env[TEST_CLOCK_FILE] || undefined,
});
