import { createServer, type Server } from 'node:http';
import { createVerify } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@corridor/testing';

// A platform's webhook endpoint for the tests: records every request with its raw body and
// answers with whatever the test decides.

export type Received = {
  rawBody: string;
  signature: string | undefined;
  body: { id: string; type: string; timestamp: string; data: any };
  receivedAt: number;
};

export type Receiver = {
  url: string;
  received: Received[];
  /** Decides the status of the next answer (default 200), and optionally its JSON body. */
  respond: (request: Received) => number | { status: number; body: unknown };
  waitFor(predicate: (received: Received[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

/** What a receiver does with X-Grid-Signature: {"v":"1","s":base64 DER ECDSA P-256 SHA-256 of the raw body}. */
export const verifyGridSignature = (rawBody: string, header: string | undefined, publicKeyPem: string): boolean => {
  if (!header) return false;
  const { v, s } = JSON.parse(header) as { v: string; s: string };
  return v === '1' && createVerify('SHA256').update(rawBody).verify(publicKeyPem, Buffer.from(s, 'base64'));
};

export const startReceiver = async (port = 0): Promise<Receiver> => {
  const receiver: Receiver = {
    url: '',
    received: [],
    respond: () => 200,
    waitFor: (predicate, what, timeoutMs = 30_000) =>
      waitUntil(
        `the receiver to see ${what}`,
        () => predicate(receiver.received),
        { timeoutMs, intervalMs: 25 },
        () => ` Got ${receiver.received.length} webhooks: ${receiver.received.map((item) => item.body.type).join(', ')}.`,
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const header = request.headers['x-grid-signature'];
      const item: Received = {
        rawBody,
        signature: Array.isArray(header) ? header[0] : header,
        body: JSON.parse(rawBody),
        receivedAt: Date.now(),
      };
      receiver.received.push(item);
      const answer = receiver.respond(item);
      const { status, body } = typeof answer === 'number' ? { status: answer, body: { received: item.body.id } } : answer;
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  return receiver;
};
