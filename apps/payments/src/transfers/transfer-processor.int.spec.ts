// The transfers' persisted timer, in process on real PostgreSQL and NATS with a clock the test
// moves: a 005 transfer goes PROCESSING on the first sweep, stays so until its due time, then the
// sweep releases its hold and fails it, once; a service restarted later (a new app on the same
// database) finishes what fell due meanwhile. A success settles the hold. The ledger's side is a
// stand-in responder on NATS that records what it was asked (the ledger itself is tested in the
// accounts app and end to end in tests/transfers.e2e.spec.ts).
import type { INestMicroservice } from '@nestjs/common';
import { connect, JSONCodec, type NatsConnection } from 'nats';
import { newId, subjects, type TransactionWire } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import {
  createControllableClock,
  deleteEventsStream,
  requireNats,
  tokenContext,
  uniqueSubjectPrefix,
  useTestDatabase,
} from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { transactionDecider } from '../transactions/transaction';
import type { RailOutcome } from '../transactions/transfer-events';
import { createTransfer } from './create-transfer';
import { TransferProcessor } from './transfer-processor';
import { createTransferCommand } from './transfer.fixtures';

const database = useTestDatabase();
const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const codec = JSONCodec();
const platformId = newId('Platform');

let subjectPrefix: string;
let nats: NatsConnection;
const ledgerCalls: { subject: string; data: Record<string, unknown> }[] = [];
/** Holds the stand-in ledger reports as already released (settling them is refused as the ledger does). */
const releasedHolds = new Set<string>();

const startApp = async (): Promise<INestMicroservice> => {
  const { healthPort: _healthPort, ...defaults } = loadConfig({});
  // Sweeps far apart: the test runs each sweep itself, at the clock's time.
  const config = {
    ...defaults,
    healthPort: 0,
    databaseUrl: database.url,
    subjectPrefix,
    logLevel: 'warn',
    transferSweepSeconds: 86_400,
    transferPendingSeconds: 30,
    expirySweepSeconds: 86_400,
  };
  const app = await createServiceApp(AppModule.register(config, clock), {
    service: 'payments',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  return app;
};

/** Opens a transfer's stream as the controller does after the hold (the parties' lookups need the accounts service). */
const openTransfer = async (app: INestMicroservice, outcome: RailOutcome): Promise<string> => {
  const transactionId = newId('Transaction');
  const command = createTransferCommand({ transactionId, platformId, outcome }, clock.now().toISOString());
  await app
    .get(EventSourcing)
    .handle(transactionId, transactionDecider, (state) => createTransfer(command, state), tokenContext(platformId), { assumeNew: true });
  return transactionId;
};

const statusOf = async (app: INestMicroservice, transactionId: string): Promise<TransactionWire> =>
  app
    .get(ServiceClient)
    .request<TransactionWire>(
      subjects.payments.transaction.get,
      { transactionId },
      { context: tokenContext(platformId), timeoutMs: 30_000 },
    );

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
  nats = await connect({ servers: loadConfig({}).natsUrl });
  for (const subject of [subjects.accounts.ledger.settle, subjects.accounts.ledger.release, subjects.accounts.ledger.credit]) {
    nats.subscribe(`${subjectPrefix}.${subject}`, {
      callback: (_error, message) => {
        const packet = codec.decode(message.data) as { id: string; data: { data: Record<string, unknown> } };
        ledgerCalls.push({ subject, data: packet.data.data });
        const holdId = String(packet.data.data['holdId']);
        if (subject === subjects.accounts.ledger.settle && releasedHolds.has(holdId)) {
          const err = {
            status: 409,
            code: 'HOLD_ALREADY_CLOSED',
            message: `Hold ${holdId} was already settled or released.`,
            details: { holdId },
          };
          message.respond(codec.encode({ id: packet.id, err, isDisposed: true }));
          return;
        }
        message.respond(codec.encode({ id: packet.id, response: {}, isDisposed: true }));
      },
    });
  }
  await nats.flush();
});

afterAll(async () => {
  await nats?.close();
  await deleteEventsStream(subjectPrefix);
});

describe('the transfer timer', () => {
  it(
    'keeps a 005 transfer PROCESSING until due, then releases its hold and fails it, ' + 'once; a restarted service finishes what fell due',
    async () => {
      let app = await startApp();
      try {
        const transactionId = await openTransfer(app, 'PENDING_THEN_FAILS');
        const processor = app.get(TransferProcessor);
        expect(await processor.sweep()).toBe(1);
        expect((await statusOf(app, transactionId)).status).toBe('PROCESSING');
        clock.advance(29_999);
        expect(await processor.sweep()).toBe(0);
        expect(ledgerCalls.filter((call) => call.data['holdId'] === transactionId)).toEqual([]);
        await app.close();

        // Down while it falls due; the next instance's first sweep finishes it.
        clock.advance(60_000);
        app = await startApp();
        expect(await app.get(TransferProcessor).sweep()).toBe(1);
        expect(await statusOf(app, transactionId)).toMatchObject({ status: 'FAILED', failureReason: 'COUNTERPARTY_POST_TX_FAILED' });
        expect(ledgerCalls.filter((call) => call.data['holdId'] === transactionId)).toEqual([
          {
            subject: subjects.accounts.ledger.release,
            data: expect.objectContaining({ operationId: `${transactionId}:release`, holdId: transactionId }),
          },
        ]);
        expect(await app.get(TransferProcessor).sweep()).toBe(0);
      } finally {
        await app.close();
      }
    },
  );

  it('settles the hold of a transfer that succeeds and completes it, and a repeated advance changes nothing', async () => {
    const app = await startApp();
    try {
      const transactionId = await openTransfer(app, 'SUCCEEDS');
      const processor = app.get(TransferProcessor);
      const [first, second] = await Promise.all([
        processor.advance(transactionId, platformId),
        processor.advance(transactionId, platformId),
      ]);
      expect(first + second).toBe(2);
      expect(await statusOf(app, transactionId)).toMatchObject({ status: 'COMPLETED', settledAt: '2026-03-01T10:01:29.999Z' });
      const settles = ledgerCalls.filter((call) => call.data['holdId'] === transactionId);
      // Both racers may ask the ledger (it is idempotent by the operation id); only one settle operation exists.
      expect(new Set(settles.map((call) => `${call.subject} ${String(call.data['operationId'])}`))).toEqual(
        new Set([`${subjects.accounts.ledger.settle} ${transactionId}:settle`]),
      );
      expect(await processor.sweep()).toBe(0);
    } finally {
      await app.close();
    }
  });

  it('fails, rather than completes, a transfer whose hold the ledger reports already released', async () => {
    const app = await startApp();
    try {
      const transactionId = await openTransfer(app, 'SUCCEEDS');
      releasedHolds.add(transactionId);
      expect(await app.get(TransferProcessor).sweep()).toBe(1);
      expect(await statusOf(app, transactionId)).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXECUTION_FAILED' });
      expect(await app.get(TransferProcessor).sweep()).toBe(0);
    } finally {
      await app.close();
    }
  });
});
