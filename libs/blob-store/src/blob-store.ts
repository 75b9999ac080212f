import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

// Where uploaded files live (documents, bulk-import CSVs): never in the event store and never
// buffered whole in memory. A put streams the body through a meter that counts, hashes and keeps
// the first bytes (for content sniffing) and stops the write once the body passes maxBytes.

export type StoredBlob = {
  key: string;
  size: number;
  /** Hex SHA-256 of the content, e.g. to recognise a re-uploaded file. */
  sha256: string;
  /** The first HEAD_BYTES bytes, to tell a PDF from a PNG by content rather than by name. */
  head: Buffer;
};

export type PutOptions = { maxBytes?: number; contentType?: string };

export interface BlobStore {
  /** Streams body to key. Past maxBytes it rejects with BlobTooLargeError and keeps nothing. */
  put(key: string, body: NodeJS.ReadableStream, options?: PutOptions): Promise<StoredBlob>;
  /** A stream of the content; rejects with BlobNotFoundError when there is none. */
  get(key: string): Promise<NodeJS.ReadableStream>;
  /** Removes the content; removing a missing key is not an error (deletes are retried). */
  delete(key: string): Promise<void>;
  close?(): Promise<void>;
}

export const HEAD_BYTES = 64;

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The content is larger than ${maxBytes} bytes.`);
    this.name = 'BlobTooLargeError';
  }
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No blob is stored under ${key}.`);
    this.name = 'BlobNotFoundError';
  }
}

// Keys become file paths and object names: a closed alphabet and no empty or dot segments keep a
// key from escaping the store's directory.
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

export const requireBlobKey = (key: string): string => {
  if (key.length > 512 || !KEY.test(key) || key.split('/').some((segment) => segment === '.' || segment === '..')) {
    throw new RangeError(`Invalid blob key "${key}": use letters, digits, '.', '_', '-' and '/' between segments.`);
  }
  return key;
};

/** Counts, hashes and keeps the head of what passes through; fails past maxBytes. */
export class BlobMeter extends Transform {
  // Not named `size`: S3's streaming upload takes a body's `size` member for its total length.
  private bytes = 0;
  private readonly hash = createHash('sha256');
  private readonly headChunks: Buffer[] = [];
  private headLength = 0;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      callback(new BlobTooLargeError(this.maxBytes));
      return;
    }
    this.hash.update(chunk);
    if (this.headLength < HEAD_BYTES) {
      const part = chunk.subarray(0, HEAD_BYTES - this.headLength);
      this.headChunks.push(part);
      this.headLength += part.length;
    }
    callback(null, chunk);
  }

  result(key: string): StoredBlob {
    return { key, size: this.bytes, sha256: this.hash.digest('hex'), head: Buffer.concat(this.headChunks) };
  }
}
