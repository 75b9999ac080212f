// Parsed once at bootstrap; nothing else in the gateway reads process.env.
import { type BlobStoreConfig, parseBlobStoreConfig } from '@corridor/blob-store';
import { parseShutdownTimeoutMs } from '@corridor/messaging';

export type GatewayConfig = {
  port: number;
  natsUrl: string;
  subjectPrefix: string;
  redisUrl: string;
  redisKeyPrefix: string;
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
  authCacheTtlSeconds: number;
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

const positiveInteger = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got "${value}".`);
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => ({
  port: positiveInteger('PORT', env['PORT'], 8080),
  natsUrl: env['NATS_URL'] || 'nats://127.0.0.1:4222',
  subjectPrefix: env['CORRIDOR_SUBJECT_PREFIX'] || 'corridor',
  redisUrl: env['REDIS_URL'] || 'redis://127.0.0.1:6379',
  redisKeyPrefix: env['REDIS_KEY_PREFIX'] || 'corridor',
  rateLimitRequests: positiveInteger('RATE_LIMIT_REQUESTS', env['RATE_LIMIT_REQUESTS'], 200),
  rateLimitWindowSeconds: positiveInteger('RATE_LIMIT_WINDOW_SECONDS', env['RATE_LIMIT_WINDOW_SECONDS'], 1),
  authCacheTtlSeconds: positiveInteger('AUTH_CACHE_TTL_SECONDS', env['AUTH_CACHE_TTL_SECONDS'], 30),
  bodyLimitBytes: positiveInteger('BODY_LIMIT_BYTES', env['BODY_LIMIT_BYTES'], 1024 * 1024),
  requestTimeoutMs: positiveInteger('REQUEST_TIMEOUT_MS', env['REQUEST_TIMEOUT_MS'], 5000),
  logLevel: env['LOG_LEVEL'] || 'info',
  shutdownTimeoutMs: parseShutdownTimeoutMs(env),
  blobStore: parseBlobStoreConfig(env),
  ...(env['PUBLIC_BASE_URL'] ? { publicBaseUrl: env['PUBLIC_BASE_URL'].replace(/\/+$/, '') } : {}),
});

export const GATEWAY_CONFIG = 'GATEWAY_CONFIG';

/** The dated API version in every path; a client pins the contract it was written against. */
export const API_VERSION = '2025-10-13';
export const SUPPORTED_VERSIONS = [API_VERSION];
