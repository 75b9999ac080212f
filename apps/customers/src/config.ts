import { type BlobStoreConfig, parseBlobStoreConfig } from '@corridor/blob-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type CustomersServiceConfig = ServiceConfig & {
  /** Where uploaded documents and bulk-import files live; the gateway writes to the same place. */
  blobStore: BlobStoreConfig;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CustomersServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'customers', healthPort: 9092 }),
  blobStore: parseBlobStoreConfig(env),
});
