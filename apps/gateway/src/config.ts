// Parsed once at bootstrap; nothing else in the gateway reads process.env.
import { type BlobStoreConfig, parseBlobStoreConfig } from '@corridor/blob-store';
import { type NatsAuth, parseNatsAuth, parseShutdownTimeoutMs } from '@corridor/messaging';
import { trimTrailing } from '@corridor/contracts';

export type GatewayConfig = {
  port: number;
  /** GATEWAY_METRICS_PORT: /metrics and the health probes on a port of their own (0: any free port); unset here means none (tests). */
  metricsPort?: number;
  natsUrl: string;
  natsAuth: NatsAuth;
  subjectPrefix: string;
  redisUrl: string;
  redisKeyPrefix: string;
  /** Requests per window for one API token (or agent), and for all of one platform's tokens and agents together. */
  rateLimitRequests: number;
  rateLimitPlatformRequests: number;
  rateLimitWindowSeconds: number;
  authCacheTtlSeconds: number;
  /** Failed Basic authentications per window, per source address and per client id, before 429 (decision 0022). */
  authFailuresPerAddress: number;
  authFailuresPerClient: number;
  authFailureWindowSeconds: number;
  /** How long a wrong (clientId, secret) pair is answered 401 from memory, without asking the platform service. */
  authNegativeCacheSeconds: number;
  /** TRUST_PROXY: which proxies' X-Forwarded-For names the client (Fastify's trustProxy); false: the socket's address. */
  trustProxy: boolean | number | string[];
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  logLevel: string;
  /** SHUTDOWN_TIMEOUT_MS: after SIGTERM, the process exits with code 1 if closing takes longer. */
  shutdownTimeoutMs: number;
  /** Where uploads are streamed (documents, bulk-import files); the customers service reads the same place. */
  blobStore: BlobStoreConfig;
  /** The address clients reach the gateway at (e.g. https://api.example.com), for links it hands out; default: the request's own host. */
  publicBaseUrl?: string;
};

// TRUST_PROXY: unset or "false" (the socket's address), "true" (any proxy: only when nothing else
// can reach the gateway), a hop count, or a comma-separated list of proxy addresses or CIDRs.
const trustProxy = (value: string | undefined): boolean | number | string[] => {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d{1,2}$/.test(text)) return Number(text);
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
};

const positiveInteger = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}".`);
  return parsed;
};

const metricsPort = (value: string | undefined): number => {
  if (value === undefined || value === '') return 9098;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0 || parsed > 65_535)
    throw new Error(`GATEWAY_METRICS_PORT must be a port number, got "${value}".`);
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => ({
  port: positiveInteger('PORT', env['PORT'], 8080),
  metricsPort: metricsPort(env['GATEWAY_METRICS_PORT']),
  natsUrl: env['NATS_URL'] || 'nats://127.0.0.1:4222',
  natsAuth: parseNatsAuth(env),
  subjectPrefix: env['CORRIDOR_SUBJECT_PREFIX'] || 'corridor',
  redisUrl: env['REDIS_URL'] || 'redis://127.0.0.1:6379',
  redisKeyPrefix: env['REDIS_KEY_PREFIX'] || 'corridor',
  rateLimitRequests: positiveInteger('RATE_LIMIT_REQUESTS', env['RATE_LIMIT_REQUESTS'], 200),
  rateLimitPlatformRequests: positiveInteger('RATE_LIMIT_PLATFORM_REQUESTS', env['RATE_LIMIT_PLATFORM_REQUESTS'], 1000),
  rateLimitWindowSeconds: positiveInteger('RATE_LIMIT_WINDOW_SECONDS', env['RATE_LIMIT_WINDOW_SECONDS'], 1),
  authCacheTtlSeconds: positiveInteger('AUTH_CACHE_TTL_SECONDS', env['AUTH_CACHE_TTL_SECONDS'], 30),
  authFailuresPerAddress: positiveInteger('AUTH_FAILURES_PER_ADDRESS', env['AUTH_FAILURES_PER_ADDRESS'], 20),
  authFailuresPerClient: positiveInteger('AUTH_FAILURES_PER_CLIENT', env['AUTH_FAILURES_PER_CLIENT'], 20),
  authFailureWindowSeconds: positiveInteger('AUTH_FAILURE_WINDOW_SECONDS', env['AUTH_FAILURE_WINDOW_SECONDS'], 60),
  authNegativeCacheSeconds: positiveInteger('AUTH_NEGATIVE_CACHE_SECONDS', env['AUTH_NEGATIVE_CACHE_SECONDS'], 10),
  trustProxy: trustProxy(env['TRUST_PROXY']),
  bodyLimitBytes: positiveInteger('BODY_LIMIT_BYTES', env['BODY_LIMIT_BYTES'], 1024 * 1024),
  requestTimeoutMs: positiveInteger('REQUEST_TIMEOUT_MS', env['REQUEST_TIMEOUT_MS'], 5000),
  logLevel: env['LOG_LEVEL'] || 'info',
  shutdownTimeoutMs: parseShutdownTimeoutMs(env),
  blobStore: parseBlobStoreConfig(env),
  // Trailing slashes dropped.
  ...(env['PUBLIC_BASE_URL'] ? { publicBaseUrl: trimTrailing(env['PUBLIC_BASE_URL'], '/') } : {}),
});

export const GATEWAY_CONFIG = 'GATEWAY_CONFIG';

/** The dated API version in every path; a client pins the contract it was written against. */
export const API_VERSION = '2025-10-13';
export const SUPPORTED_VERSIONS = [API_VERSION];
