import { parseAllowPrivateWebhookTargets } from '@corridor/contracts';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type WebhooksServiceConfig = ServiceConfig & {
  redisUrl: string;
  /** Prefix of every BullMQ key, so deployments (and test runs) sharing a Redis stay apart. */
  redisKeyPrefix: string;
  /** AES-256-GCM key that encrypts the platforms' private signing keys at rest. */
  keyEncryptionKey: Buffer;
  /** Upper bound on one HTTP delivery; the reference asks receivers to answer within 30 s. */
  requestTimeoutMs: number;
  /** How often due deliveries are enqueued (0 = only when tick() is called, for tests). */
  tickIntervalMs: number;
  /** Ordinary deliveries sent at once by one process (HTTP requests in flight). */
  concurrency: number;
  /** INCOMING_PAYMENT.PENDING approval hooks sent at once by one process: a lane of their own. */
  approvalConcurrency: number;
  /** Ordinary deliveries of one platform in flight at once in one process; the rest wait their turn. */
  platformConcurrency: number;
  /** Approval hooks of one platform in flight at once in one process. */
  approvalPlatformConcurrency: number;
  /** Circuit breaker per (platform, endpoint): consecutive timeouts that open it. */
  breakerTimeouts: number;
  /** How long an open circuit sends nothing before one probe (doubling after each failed probe, at most 16×). */
  breakerOpenMs: number;
  /** The timeout of a probe of an endpoint whose circuit opened. */
  breakerProbeTimeoutMs: number;
  /** Due deliveries carried by one BullMQ job: claimed in one statement, sent concurrently. */
  batchSize: number;
  /** A due webhook not sent for this long marks /health's `delivery` part degraded: the dispatcher is stuck or far behind. */
  stuckAfterSeconds: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: webhooks (of any platform) may go to private and other special-use addresses. */
  allowPrivateTargets: boolean;
};

// A fixed key for development and tests only: anyone can read it here, so production refuses it.
const DEV_KEY_ENCRYPTION_KEY = 'ZGV2LW9ubHktd2ViaG9vay1rZXktZW5jcnlwdGlvbi0=';

const positiveInt = (name: string, value: string | undefined, fallback: number, min = 1): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${value}".`);
  return parsed;
};

/**
 * Keys anyone can read: the dev key above and the defaults written in docker-compose.yml and
 * deploy/k8s. Production refuses them (scripts/apps.spec.ts checks that every key written in those
 * files is listed here).
 */
export const PUBLIC_KEY_ENCRYPTION_KEYS: readonly string[] = [
  DEV_KEY_ENCRYPTION_KEY,
  // docker-compose.yml's default for a local compose run.
  'bG9jYWwtY29tcG9zZS1vbmx5LWNoYW5nZS1tZS0wMDA=',
  // deploy/k8s/kustomization.yaml's placeholder (not even base64 of 32 bytes, refused anyway).
  'replace-with-openssl-rand-base64-32',
];

const GENERATE = 'generate one with `openssl rand -base64 32` and keep it secret';

export const parseKeyEncryptionKey = (env: NodeJS.ProcessEnv): Buffer => {
  const configured = env['WEBHOOK_KEY_ENCRYPTION_KEY'];
  const production = env['NODE_ENV'] === 'production';
  if (!configured) {
    if (production) {
      throw new Error(`WEBHOOK_KEY_ENCRYPTION_KEY is required in production: 32 random bytes, base64; ${GENERATE}.`);
    }
    return Buffer.from(DEV_KEY_ENCRYPTION_KEY, 'base64');
  }
  if (production && PUBLIC_KEY_ENCRYPTION_KEYS.includes(configured.trim())) {
    throw new Error(
      `WEBHOOK_KEY_ENCRYPTION_KEY is a publicly known default (from the code, docker-compose.yml or deploy/); in production ${GENERATE}.`,
    );
  }
  const key = Buffer.from(configured, 'base64');
  if (key.length !== 32)
    throw new Error(`WEBHOOK_KEY_ENCRYPTION_KEY must be 32 bytes in base64; it decodes to ${key.length} bytes (${GENERATE}).`);
  return key;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'webhooks', healthPort: 9094 }),
  redisUrl: env['REDIS_URL'] || 'redis://127.0.0.1:6379',
  redisKeyPrefix: env['REDIS_KEY_PREFIX'] || 'corridor:',
  keyEncryptionKey: parseKeyEncryptionKey(env),
  requestTimeoutMs: positiveInt('WEBHOOK_TIMEOUT_MS', env['WEBHOOK_TIMEOUT_MS'], 10_000),
  tickIntervalMs: positiveInt('WEBHOOK_TICK_INTERVAL_MS', env['WEBHOOK_TICK_INTERVAL_MS'], 250, 0),
  concurrency: positiveInt('WEBHOOK_CONCURRENCY', env['WEBHOOK_CONCURRENCY'], 128),
  batchSize: positiveInt('WEBHOOK_BATCH_SIZE', env['WEBHOOK_BATCH_SIZE'], 32),
  approvalConcurrency: positiveInt('WEBHOOK_APPROVAL_CONCURRENCY', env['WEBHOOK_APPROVAL_CONCURRENCY'], 32),
  platformConcurrency: positiveInt('WEBHOOK_PLATFORM_CONCURRENCY', env['WEBHOOK_PLATFORM_CONCURRENCY'], 32),
  approvalPlatformConcurrency: positiveInt('WEBHOOK_APPROVAL_PLATFORM_CONCURRENCY', env['WEBHOOK_APPROVAL_PLATFORM_CONCURRENCY'], 8),
  breakerTimeouts: positiveInt('WEBHOOK_BREAKER_TIMEOUTS', env['WEBHOOK_BREAKER_TIMEOUTS'], 3),
  breakerOpenMs: positiveInt('WEBHOOK_BREAKER_OPEN_MS', env['WEBHOOK_BREAKER_OPEN_MS'], 30_000),
  breakerProbeTimeoutMs: positiveInt('WEBHOOK_BREAKER_PROBE_TIMEOUT_MS', env['WEBHOOK_BREAKER_PROBE_TIMEOUT_MS'], 2_000),
  stuckAfterSeconds: positiveInt('WEBHOOK_STUCK_AFTER_SECONDS', env['WEBHOOK_STUCK_AFTER_SECONDS'], 60),
  allowPrivateTargets: parseAllowPrivateWebhookTargets(env),
});
