import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { BlobNotFoundError, type BlobStore, BlobTooLargeError, HEAD_BYTES } from './blob-store';

/** What every BlobStore adapter must do; each adapter's spec runs it against a real backend. */
export const blobStoreContract = (name: string, open: () => Promise<BlobStore>): void => {
  describe(name, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close?.();
    });

    const key = () => `contract/${randomUUID()}`;

    it('stores a streamed body and reads it back, with its size, SHA-256 and first bytes', async () => {
      const content = randomBytes(300_000);
      const stored = await store.put(key(), Readable.from([content.subarray(0, 1000), content.subarray(1000)]));
      expect(stored.size).toBe(content.length);
      expect(stored.sha256).toBe(createHash('sha256').update(content).digest('hex'));
      expect(stored.head.equals(content.subarray(0, HEAD_BYTES))).toBe(true);
      const chunks: Buffer[] = [];
      for await (const chunk of await store.get(stored.key)) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(content)).toBe(true);
    });

    it('streams a 10 MiB body (larger than one S3 upload part) in small chunks and reads it back whole', async () => {
      const chunk = randomBytes(64 * 1024);
      const count = 160;
      const expected = createHash('sha256');
      for (let i = 0; i < count; i += 1) expected.update(chunk);
      const stored = await store.put(
        key(),
        Readable.from(
          (function* () {
            for (let i = 0; i < count; i += 1) yield chunk;
          })(),
        ),
        { maxBytes: 10 * 1024 * 1024 },
      );
      expect(stored.size).toBe(10 * 1024 * 1024);
      expect(stored.sha256).toBe(expected.digest('hex'));
      const back = createHash('sha256');
      let size = 0;
      for await (const part of await store.get(stored.key)) {
        back.update(part as Buffer);
        size += (part as Buffer).length;
      }
      expect(size).toBe(10 * 1024 * 1024);
      expect(back.digest('hex')).toBe(stored.sha256);
    });

    it('refuses a body past maxBytes and keeps nothing under the key', async () => {
      const target = key();
      await expect(store.put(target, Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(
        BlobTooLargeError,
      );
      await expect(store.get(target)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('accepts a body of exactly maxBytes', async () => {
      const stored = await store.put(key(), Readable.from([Buffer.alloc(1000, 7)]), { maxBytes: 1000 });
      expect(stored.size).toBe(1000);
    });

    it('replaces the content under an existing key', async () => {
      const target = key();
      await store.put(target, Readable.from(['first version']));
      await store.put(target, Readable.from(['second']));
      expect(await text(await store.get(target))).toBe('second');
    });

    it('deletes, and deleting again or a missing key is not an error', async () => {
      const target = key();
      await store.put(target, Readable.from(['x']));
      await store.delete(target);
      await store.delete(target);
      await expect(store.get(target)).rejects.toBeInstanceOf(BlobNotFoundError);
    });

    it('refuses keys that could escape the store', async () => {
      for (const bad of ['../etc/passwd', 'a/../../b', '/absolute', 'a//b', '', 'a/./b', 'spaces in key']) {
        await expect(store.put(bad, Readable.from(['x']))).rejects.toThrow(/Invalid blob key/);
      }
    });

    it('passes a source stream error on and keeps nothing', async () => {
      const target = key();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(100));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store.put(target, failing)).rejects.toThrow('client went away');
      await expect(store.get(target)).rejects.toBeInstanceOf(BlobNotFoundError);
    });
  });
};
