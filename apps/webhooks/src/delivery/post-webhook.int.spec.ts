// postWebhook against a real local HTTP server: the signed body arrives byte for byte, the answer
// is the result with the address it came from (a redirect is not followed), connections are
// reused, and a receiver that never answers or is not listening gives an error result (a timeout
// marked as one) instead of throwing.
import { createServer, type IncomingMessage, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SIGNATURE_HEADER } from '../signing/signing-key';
import { pinnedLookup, postWebhook, type ResolveHost } from './post-webhook';

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
      received.push({
        method: request.method ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        signature: request.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined,
        contentType: request.headers['content-type'],
        socket: request.socket,
      });
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
  expect(result).toMatchObject({ statusCode: 200, responseBody: 'ok', peerAddress: '127.0.0.1' });
  expect(result.error).toBeUndefined();
  expect(result.timedOut).toBeUndefined();
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
  expect(result).toMatchObject({ error: 'no answer within 300 ms', timedOut: true });
  expect(result.statusCode).toBeUndefined();
});

it('gives an error result when nothing listens at the endpoint', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const result = await postWebhook(`http://127.0.0.1:${port}/hook`, '{}', 's', 2_000);
  expect(result).toMatchObject({ error: 'ECONNREFUSED' });
  expect(result.timedOut).toBeUndefined();
});

it('gives an error result for an endpoint that is not an http(s) URL', async () => {
  expect((await postWebhook('ftp://example.invalid/hook', '{}', 's', 2_000)).error).toBe('unsupported protocol ftp:');
});

describe('a publicOnly policy (every platform, unless the deployment opts in to private targets)', () => {
  const resolvingTo =
    (...addresses: string[]): ResolveHost =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const port = () => new URL(base).port;

  it('refuses, without sending, a host that resolves to a loopback address now (DNS rebinding)', async () => {
    const result = await postWebhook(`http://receiver.test:${port()}/hook`, '{}', 's', 2_000, {
      publicOnly: true,
      resolve: resolvingTo('93.184.215.14', '127.0.0.1'),
    });
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toMatch(/^refused: webhookEndpoint receiver\.test resolves to 127\.0\.0\.1, which is a loopback address/);
    expect(received).toHaveLength(0);
  });

  it('refuses literal private, link-local and mapped addresses, and names the cloud metadata address', async () => {
    const policy = { publicOnly: true, resolve: resolvingTo() };
    expect((await postWebhook(`${base}/hook`, '{}', 's', 2_000, policy)).error).toMatch(
      /^refused: webhookEndpoint 127\.0\.0\.1 is a loopback address/,
    );
    expect((await postWebhook('http://169.254.169.254/latest/meta-data', '{}', 's', 2_000, policy)).error).toMatch(
      /is the cloud metadata address/,
    );
    expect((await postWebhook('http://[::ffff:10.0.0.1]/hook', '{}', 's', 2_000, policy)).error).toMatch(
      /is a private address \(10\.0\.0\.0\/8\)/,
    );
    expect((await postWebhook('http://[fd00::1]/hook', '{}', 's', 2_000, policy)).error).toMatch(/unique-local/);
    expect(received).toHaveLength(0);
  });

  it('refuses a host that does not resolve, and one that resolves to nothing', async () => {
    const failing: ResolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND gone.test'), { code: 'ENOTFOUND' });
    };
    expect((await postWebhook('http://gone.test/hook', '{}', 's', 2_000, { publicOnly: true, resolve: failing })).error).toBe(
      'refused: webhookEndpoint host gone.test does not resolve (ENOTFOUND), so it cannot be checked for a public address.',
    );
    expect((await postWebhook('http://empty.test/hook', '{}', 's', 2_000, { publicOnly: true, resolve: resolvingTo() })).error).toBe(
      'refused: webhookEndpoint host empty.test resolves to no address.',
    );
  });

  it('counts a look-up that never answers against the deadline', async () => {
    const result = await postWebhook('http://slow.test/hook', '{}', 's', 200, {
      publicOnly: true,
      resolve: () => new Promise(() => undefined),
    });
    expect(result.error).toBe('refused: webhookEndpoint host slow.test was not resolved within 200 ms.');
  });

  it('connects to the address it checked: the pinned look-up answers for a name no DNS knows', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        `http://receiver.test:${port()}/hook`,
        { method: 'POST', lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]) },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      request.on('error', reject);
      request.end('{"pinned":true}');
    });
    expect(status).toBe(200);
    expect(received.map((item) => item.body)).toEqual(['{"pinned":true}']);
  });
});
