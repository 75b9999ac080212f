// receiveDocument against a real Fastify multipart parser and a real local blob store: the file
// part is streamed to the store whatever the order of the parts, an oversized file is 413 with
// nothing kept, and a store that fails is the store's error (503), not the client's.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import multipart from '@fastify/multipart';
import { type BlobStore, LocalBlobStore } from '@corridor/blob-store';
import { DomainError } from '@corridor/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { discardUpload, MAX_DOCUMENT_BYTES, receiveDocument } from './document-upload';

let root: string;
let store: LocalBlobStore;

const appWith = async (blobs: BlobStore): Promise<FastifyInstance> => {
  const app = Fastify();
  await app.register(multipart, { limits: { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 } });
  app.post('/upload', async (request, reply) => {
    try {
      return await receiveDocument(request, blobs);
    } catch (error) {
      const body = error instanceof DomainError ? error.toBody() : { status: 500, code: 'BUG', message: String(error) };
      return reply.status(body.status).send(body);
    }
  });
  return app;
};

const multipartBody = async (parts: [string, string | Blob, string?][]) => {
  const form = new FormData();
  for (const [name, value, fileName] of parts) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, fileName);
  }
  const response = new Response(form);
  return { payload: Buffer.from(await response.arrayBuffer()), headers: { 'content-type': response.headers.get('content-type')! } };
};

const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(100_000, 0x20)]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'corridor-upload-'));
  store = new LocalBlobStore(root);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('receiveDocument', () => {
  it('streams the file to the store and reads fields sent before and after it', async () => {
    const app = await appWith(store);
    const body = await multipartBody([
      ['documentType', 'PASSPORT'],
      ['file', new Blob([PDF]), '../../etc/scan.pdf'],
      ['country', 'US'],
    ]);
    const reply = await app.inject({ method: 'POST', url: '/upload', ...body });
    expect(reply.statusCode).toBe(200);
    const result = reply.json();
    expect(result.fields).toEqual({ documentType: 'PASSPORT', country: 'US' });
    expect(result.file).toMatchObject({
      fileName: 'scan.pdf',
      size: PDF.length,
      contentType: 'application/pdf',
      blobKey: expect.stringMatching(/^documents\/[0-9a-f-]{36}$/),
    });
    expect(await readdir(join(root, 'documents'))).toContain(result.file.blobKey.split('/')[1]);
    await app.close();
  });

  it('answers 413 past 10 MB and keeps nothing', async () => {
    const app = await appWith(store);
    const before = await readdir(join(root, 'documents')).catch(() => []);
    const body = await multipartBody([
      ['file', new Blob([PDF, Buffer.alloc(MAX_DOCUMENT_BYTES)]), 'big.pdf'],
      ['country', 'US'],
    ]);
    const reply = await app.inject({ method: 'POST', url: '/upload', ...body });
    expect(reply.statusCode).toBe(413);
    expect(reply.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { field: 'file' } });
    expect(await readdir(join(root, 'documents')).catch(() => [])).toEqual(before);
    await app.close();
  });

  it('answers 503 when the store fails, and 400 for a file that is not a PDF, JPEG or PNG', async () => {
    const broken: BlobStore = {
      put: async () => Promise.reject(new Error('ENOSPC: no space left on device')),
      get: async () => Promise.reject(new Error('x')),
      delete: async () => undefined,
    };
    const app = await appWith(broken);
    const reply = await app.inject({ method: 'POST', url: '/upload', ...(await multipartBody([['file', new Blob([PDF]), 'a.pdf']])) });
    expect(reply.statusCode).toBe(503);
    expect(reply.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await app.close();

    const real = await appWith(store);
    const before = await readdir(join(root, 'documents')).catch(() => []);
    const text = await real.inject({
      method: 'POST',
      url: '/upload',
      ...(await multipartBody([['file', new Blob(['GIF89a not allowed']), 'a.png']])),
    });
    expect(text.statusCode).toBe(400);
    expect(await readdir(join(root, 'documents')).catch(() => [])).toEqual(before);
    await real.close();
  });

  it('after a refused command removes the file; after a timeout keeps it, since the command may still land', async () => {
    const stored = async () => {
      const blob = await store.put(`documents/discard-${Math.random().toString(36).slice(2)}`, Readable.from([PDF]));
      return {
        fields: {},
        file: { blobKey: blob.key, fileName: 'a.pdf', size: blob.size, sha256: blob.sha256, contentType: 'application/pdf' as const },
      };
    };
    const refused = await stored();
    await discardUpload(store, refused, new DomainError('REFERENCE_NOT_FOUND', 'not_found', 'no holder'));
    await expect(store.get(refused.file.blobKey)).rejects.toThrow(/No blob/);
    const timedOut = await stored();
    await discardUpload(store, timedOut, new DomainError('SERVICE_UNAVAILABLE', 'unavailable', 'customers is not answering'));
    const kept = (await store.get(timedOut.file.blobKey)) as Readable;
    kept.destroy();
  });
});
