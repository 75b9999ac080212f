import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyGridSignature } from '../tests/support/webhook-receiver';

// One platform's webhook endpoint. It verifies every signature, counts every webhook by id (a
// webhook received again after a 2xx is a duplicate), and answers by a configured mix: 200, or
// 202 and an approval shortly after (INCOMING_PAYMENT.PENDING, the approval hook), or 500.

export type AnswerMix = { ok: number; deferred: number; error: number };
export type ReceiverCounts = {
  received: number;
  unique: number;
  duplicates: number;
  badSignatures: number;
  answered500: number;
  approvalsDeferred: number;
  byType: Record<string, number>;
};

export type SoakReceiver = {
  url: string;
  /** Ids answered with a 2xx. */
  acknowledged: Set<string>;
  /** Ids answered 500 and never acknowledged since. */
  refused: Set<string>;
  /** Ids answered 500 at least once, acknowledged since or not. */
  refusedEver: Set<string>;
  counts: ReceiverCounts;
  setPublicKey(pem: string): void;
  close(): Promise<void>;
};

export const startSoakReceiver = async (
  mix: AnswerMix,
  random: () => number,
  /** Called after a 202 to approve the payment through the API. */
  approve: (transactionId: string) => void,
): Promise<SoakReceiver> => {
  let publicKey = '';
  const seen = new Map<string, number>();
  const counts: ReceiverCounts = {
    received: 0,
    unique: 0,
    duplicates: 0,
    badSignatures: 0,
    answered500: 0,
    approvalsDeferred: 0,
    byType: {},
  };
  const acknowledged = new Set<string>();
  const refused = new Set<string>();
  const refusedEver = new Set<string>();
  const total = mix.ok + mix.deferred + mix.error;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const header = request.headers['x-grid-signature'];
      counts.received += 1;
      let verified = false;
      try {
        verified = publicKey !== '' && verifyGridSignature(rawBody, Array.isArray(header) ? header[0] : header, publicKey);
      } catch {
        verified = false;
      }
      if (!verified) {
        counts.badSignatures += 1;
        response.writeHead(401).end();
        return;
      }
      const body = JSON.parse(rawBody) as { id: string; type: string; data?: { id?: string } };
      counts.byType[body.type] = (counts.byType[body.type] ?? 0) + 1;
      seen.set(body.id, (seen.get(body.id) ?? 0) + 1);
      if (acknowledged.has(body.id)) counts.duplicates += 1;
      const roll = random() * total;
      let status = 200;
      if (roll >= mix.ok + mix.deferred) status = 500;
      else if (roll >= mix.ok && body.type === 'INCOMING_PAYMENT.PENDING') status = 202;
      if (status === 500) {
        counts.answered500 += 1;
        refused.add(body.id);
        refusedEver.add(body.id);
      } else {
        acknowledged.add(body.id);
        refused.delete(body.id);
      }
      counts.unique = seen.size;
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: body.id }));
      if (status === 202 && body.data?.id) {
        counts.approvalsDeferred += 1;
        const transactionId = body.data.id;
        setTimeout(() => approve(transactionId), 200 + Math.floor(random() * 800));
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    acknowledged,
    refused,
    refusedEver,
    counts,
    setPublicKey: (pem) => {
      publicKey = pem;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
