import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BlobMeter, BlobNotFoundError, type BlobStore, type PutOptions, requireBlobKey, type StoredBlob } from './blob-store';

/**
 * Blobs as files under one directory (the default, and what a single-host deployment mounts as a
 * volume). A put writes a temporary file and renames it into place, so a reader never sees half a
 * file and a failed or oversized upload leaves nothing behind.
 */
export class LocalBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    return join(this.root, requireBlobKey(key));
  }

  async put(key: string, body: NodeJS.ReadableStream, options: PutOptions = {}): Promise<StoredBlob> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}.part`;
    const meter = new BlobMeter(options.maxBytes);
    try {
      await pipeline(body, meter, createWriteStream(temporary, { flags: 'wx' }));
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return meter.result(key);
  }

  async get(key: string): Promise<NodeJS.ReadableStream> {
    const path = this.pathOf(key);
    const found = await stat(path).catch(() => null);
    if (!found?.isFile()) throw new BlobNotFoundError(key);
    return createReadStream(path);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
