import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blobStoreContract } from './blob-store.contract';
import { S3BlobStore } from './s3-blob-store';

// Runs the blob store contract against an S3-compatible server: the one S3_TEST_ENDPOINT and
// S3_TEST_BUCKET name (e.g. MinIO from `docker compose --profile s3 up -d minio`, credentials in
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), else s3rver, an S3 emulator started in this process
// on a free loopback port. Both speak the S3 REST API, multipart uploads included.

type S3rverInstance = { run(): Promise<{ port: number }>; close(): Promise<void> };

let server: S3rverInstance | undefined;
let directory: string | undefined;

afterAll(async () => {
  await server?.close();
  if (directory) await rm(directory, { recursive: true, force: true });
});

const open = async (): Promise<S3BlobStore> => {
  const prefix = `t${randomUUID().slice(0, 8)}/`;
  const region = process.env['S3_TEST_REGION'] || 'us-east-1';
  const endpoint = process.env['S3_TEST_ENDPOINT'];
  const bucket = process.env['S3_TEST_BUCKET'];
  if (endpoint && bucket) return new S3BlobStore({ bucket, endpoint, region, forcePathStyle: true, prefix });

  // s3rver checks signatures against its fixed key pair.
  process.env['AWS_ACCESS_KEY_ID'] = 'S3RVER';
  process.env['AWS_SECRET_ACCESS_KEY'] = 'S3RVER';
  directory = await mkdtemp(join(tmpdir(), 'corridor-s3rver-'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const S3rver = require('s3rver') as new (options: object) => S3rverInstance;
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: process.env['S3RVER_LOG'] !== '1',
    directory,
    configureBuckets: [{ name: 'corridor-test' }],
  });
  const { port } = await server.run();
  return new S3BlobStore({ bucket: 'corridor-test', endpoint: `http://127.0.0.1:${port}`, region, forcePathStyle: true, prefix });
};

blobStoreContract('S3BlobStore', open);
