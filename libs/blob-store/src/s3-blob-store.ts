import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { BlobMeter, BlobNotFoundError, type BlobStore, type PutOptions, requireBlobKey, type StoredBlob } from './blob-store';

export type S3BlobStoreOptions = {
  bucket: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2…); absent for AWS itself. */
  endpoint?: string;
  region: string;
  /** Path-style addressing, which most self-hosted S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Prepended to every key, so several deployments can share a bucket. */
  prefix?: string;
};

/**
 * Blobs in an S3-compatible bucket. Uploads are multipart and streamed (lib-storage's Upload keeps
 * a few 5 MB parts in flight, never the whole file); an oversized body aborts the upload, which
 * discards the parts already sent. Credentials come from the AWS SDK's usual chain (environment,
 * shared config, instance role).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.client = new S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      // A custom endpoint is a third-party S3 implementation: many do not accept the SDK's default
      // extra checksums (CRC32 trailers on every part), so send them only where S3 requires them.
      ...(options.endpoint
        ? { endpoint: options.endpoint, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
        : {}),
    });
  }

  private objectKey(key: string): string {
    return `${this.options.prefix ?? ''}${requireBlobKey(key)}`;
  }

  async put(key: string, body: NodeJS.ReadableStream, options: PutOptions = {}): Promise<StoredBlob> {
    const meter = new BlobMeter(options.maxBytes);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.options.bucket, Key: this.objectKey(key), Body: meter, ContentType: options.contentType },
    });
    // The meter's error (too large, or the client went away) must stop the upload, not leave it waiting.
    let failure: unknown;
    const fail = (error: unknown) => {
      failure ??= error;
      void upload.abort();
    };
    meter.once('error', fail);
    body.once('error', (error) => meter.destroy(error));
    body.pipe(meter);
    try {
      await upload.done();
    } catch (error) {
      throw failure ?? error;
    }
    if (failure) throw failure;
    return meter.result(key);
  }

  async get(key: string): Promise<NodeJS.ReadableStream> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      return object.Body as Readable;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
