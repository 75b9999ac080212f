// Parsed once at bootstrap; nothing else in the app reads process.env.
export type PlatformServiceConfig = {
  databaseUrl: string;
  natsUrl: string;
  subjectPrefix: string;
  healthPort: number;
  schema: string;
  logLevel: string;
};

const integer = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got "${value}".`);
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): PlatformServiceConfig => ({
  databaseUrl: env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/corridor',
  natsUrl: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
  subjectPrefix: env['CORRIDOR_SUBJECT_PREFIX'] ?? 'corridor',
  healthPort: integer('HEALTH_PORT', env['HEALTH_PORT'], 9091),
  schema: 'platform',
  logLevel: env['LOG_LEVEL'] || 'info',
});
