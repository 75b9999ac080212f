import { type BlobStoreConfig, parseBlobStoreConfig } from '@corridor/blob-store';
import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';
import type { BulkImportOptions } from './bulk/bulk-import.queue';

export type CustomersServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY (libs/event-store). */
  eventSourcing: EventSourcingSettings;
  /** Where uploaded documents and bulk-import files live; the gateway writes to the same place. */
  blobStore: BlobStoreConfig;
  /** Bulk CSV import: its BullMQ queue (Redis) and how many rows it decides at once. */
  bulkImport: BulkImportOptions;
};

const positiveInt = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be an integer ≥ 1, got "${value}".`);
  return parsed;
};

const nonNegativeInt = (name: string, value: string | undefined, fallback: number): number =>
  value === '0' ? 0 : positiveInt(name, value, fallback);

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CustomersServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'customers', healthPort: 9092 }),
  eventSourcing: eventSourcingSettingsFrom('customers', env),
  blobStore: parseBlobStoreConfig(env),
  bulkImport: {
    redisUrl: env['REDIS_URL'] || 'redis://127.0.0.1:6379',
    redisKeyPrefix: env['REDIS_KEY_PREFIX'] || 'corridor:',
    batchRows: positiveInt('BULK_IMPORT_BATCH_ROWS', env['BULK_IMPORT_BATCH_ROWS'], 500),
    batchesInFlight: positiveInt('BULK_IMPORT_BATCHES_IN_FLIGHT', env['BULK_IMPORT_BATCHES_IN_FLIGHT'], 3),
    maxRows: positiveInt('BULK_IMPORT_MAX_ROWS', env['BULK_IMPORT_MAX_ROWS'], 1_000_000),
    attempts: positiveInt('BULK_IMPORT_ATTEMPTS', env['BULK_IMPORT_ATTEMPTS'], 20),
    sweepIntervalMs: nonNegativeInt('BULK_IMPORT_SWEEP_INTERVAL_MS', env['BULK_IMPORT_SWEEP_INTERVAL_MS'], 30_000),
    stuckAfterMs: positiveInt('BULK_IMPORT_STUCK_AFTER_MS', env['BULK_IMPORT_STUCK_AFTER_MS'], 10 * 60_000),
  },
});
