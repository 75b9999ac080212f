import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { blobStoreContract } from './blob-store.contract';
import { LocalBlobStore } from './local-blob-store';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const open = async () => {
  const root = await mkdtemp(join(tmpdir(), 'corridor-blobs-'));
  roots.push(root);
  return { root, store: new LocalBlobStore(root) };
};

blobStoreContract('LocalBlobStore', async () => (await open()).store);

describe('LocalBlobStore files', () => {
  it('leaves no temporary file behind after an oversized upload', async () => {
    const { root, store } = await open();
    await expect(store.put('docs/big', Readable.from([Buffer.alloc(2048)]), { maxBytes: 1024 })).rejects.toThrow();
    expect(await readdir(join(root, 'docs'))).toEqual([]);
  });
});
