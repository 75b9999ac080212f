import { randomUUID } from 'node:crypto';
import { blobStoreContract } from './blob-store.contract';
import { S3BlobStore } from './s3-blob-store';

// Runs the blob store contract against an S3-compatible server when S3_TEST_ENDPOINT and
// S3_TEST_BUCKET name one (e.g. MinIO: S3_TEST_ENDPOINT=http://127.0.0.1:9000, credentials in
// AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY); without one, the contract is not run and says so.

const endpoint = process.env['S3_TEST_ENDPOINT'];
const bucket = process.env['S3_TEST_BUCKET'];

if (endpoint && bucket) {
  blobStoreContract('S3BlobStore', async () =>
    new S3BlobStore({ bucket, endpoint, region: process.env['S3_TEST_REGION'] || 'us-east-1', forcePathStyle: true, prefix: `t${randomUUID().slice(0, 8)}/` }),
  );
} else {
  console.warn(
    'S3 blob store contract NOT RUN: S3_TEST_ENDPOINT and S3_TEST_BUCKET are not set, so no S3-compatible server is available. ' +
      'Start one (e.g. `docker compose --profile s3 up -d minio`) and set S3_TEST_ENDPOINT=http://127.0.0.1:9000 S3_TEST_BUCKET=corridor-test.',
  );
  it.todo('S3BlobStore contract (needs S3_TEST_ENDPOINT and S3_TEST_BUCKET)');
}
