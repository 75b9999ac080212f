// postWebhook against a real local HTTP server: the signed body arrives byte for byte, the answer
// is the result (a redirect is not followed), connections are reused, and a receiver that never
// answers or is not listening gives an error result instead of throwing.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SIGNATURE_HEADER } from '../signing/signing-key';
import { postWebhook } from './post-webhook';

type Received = { method: string; body: string; signature: string | undefined; contentType: string | undefined; socket: Socket };
const received: Received[] = [];
let answer: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => response.writeHead(200).end('ok');
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', body: Buffer.concat(chunks).toString('utf8'), signature: request.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined, contentType: request.headers['content-type'], socket: request.socket });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  received.length = 0;
  answer = (_request, response) => response.writeHead(200).end('ok');
});

it('POSTs the exact body with the signature header and reports the status and answer', async () => {
  const body = JSON.stringify({ id: 'Webhook:1', type: 'TEST', note: 'é ✓' });
  const result = await postWebhook(`${base}/hook`, body, '{"v":"1","s":"abc"}', 2_000);
  expect(result).toMatchObject({ statusCode: 200, responseBody: 'ok' });
  expect(result.error).toBeUndefined();
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ method: 'POST', body, signature: '{"v":"1","s":"abc"}', contentType: 'application/json' });
});

it('reuses the connection for the next webhook to the same receiver', async () => {
  await postWebhook(`${base}/hook`, '{"n":1}', 's', 2_000);
  await postWebhook(`${base}/hook`, '{"n":2}', 's', 2_000);
  expect(received).toHaveLength(2);
  expect(received[1]!.socket).toBe(received[0]!.socket);
});

it('does not follow a redirect: the 3xx is the answer', async () => {
  answer = (_request, response) => response.writeHead(302, { location: `${base}/elsewhere` }).end();
  const result = await postWebhook(`${base}/hook`, '{}', 's', 2_000);
  expect(result.statusCode).toBe(302);
  expect(received).toHaveLength(1);
});

it('gives an error result when the receiver does not answer within the timeout', async () => {
  answer = () => undefined;
  const result = await postWebhook(`${base}/hook`, '{}', 's', 300);
  expect(result).toMatchObject({ error: 'no answer within 300 ms' });
  expect(result.statusCode).toBeUndefined();
});

it('gives an error result when nothing listens at the endpoint', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const result = await postWebhook(`http://127.0.0.1:${port}/hook`, '{}', 's', 2_000);
  expect(result).toMatchObject({ error: 'ECONNREFUSED' });
});

it('gives an error result for an endpoint that is not an http(s) URL', async () => {
  expect((await postWebhook('ftp://example.invalid/hook', '{}', 's', 2_000)).error).toBe('unsupported protocol ftp:');
});
