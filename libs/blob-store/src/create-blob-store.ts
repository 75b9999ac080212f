import { resolve } from 'node:path';
import type { BlobStore } from './blob-store';
import { LocalBlobStore } from './local-blob-store';
import { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store';

/** Nest injection token of the process's BlobStore. */
export const BLOB_STORE = 'BLOB_STORE';

export type BlobStoreConfig = { kind: 'local'; directory: string } | ({ kind: 's3' } & S3BlobStoreOptions);

/**
 * The store a service's environment names: BLOB_STORE=local (default; files under BLOB_DIR,
 * default var/blobs) or BLOB_STORE=s3 (S3_BUCKET required; S3_ENDPOINT, S3_REGION,
 * S3_FORCE_PATH_STYLE, S3_KEY_PREFIX optional). Every process that reads or writes the same blobs
 * (the gateway and customers) must point at the same place: a shared volume, or the same bucket.
 */
export const parseBlobStoreConfig = (env: NodeJS.ProcessEnv): BlobStoreConfig => {
  const kind = env['BLOB_STORE'] || 'local';
  if (kind === 'local') return { kind, directory: resolve(env['BLOB_DIR'] || 'var/blobs') };
  if (kind === 's3') {
    const bucket = env['S3_BUCKET'];
    if (!bucket) throw new Error('BLOB_STORE=s3 needs S3_BUCKET.');
    return {
      kind,
      bucket,
      region: env['S3_REGION'] || 'us-east-1',
      forcePathStyle: (env['S3_FORCE_PATH_STYLE'] ?? 'true') !== 'false',
      ...(env['S3_ENDPOINT'] ? { endpoint: env['S3_ENDPOINT'] } : {}),
      ...(env['S3_KEY_PREFIX'] ? { prefix: env['S3_KEY_PREFIX'] } : {}),
    };
  }
  throw new Error(`BLOB_STORE must be "local" or "s3", got "${kind}".`);
};

export const createBlobStore = (config: BlobStoreConfig): BlobStore =>
  config.kind === 'local' ? new LocalBlobStore(config.directory) : new S3BlobStore(config);
