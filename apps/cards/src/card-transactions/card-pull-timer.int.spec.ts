// The delayed-pull timer in process on real PostgreSQL and NATS with a clock the test moves: a
// 005 authorization shows its pull PENDING (read model, over NATS) until 30 s after it, and the
// sweep then confirms it; a pull pending when cards stopped is confirmed by a new app on the same
// database (due_at is persisted); another platform's transaction is not found.
import type { INestMicroservice } from '@nestjs/common';
import { cardTransactionSubjects, type CardTransactionWire, DomainError } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import {
  createControllableClock,
  deleteEventsStream,
  domainErrorOf,
  requireNats,
  startServiceApp,
  tokenContext,
  uniqueSubjectPrefix,
  useTestDatabase,
} from '@corridor/testing';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';
import { CardPullTimer } from './card-pull-timer';
import { authorizeCardTransaction, cardTransactionDecider, DELAYED_PULL_MS } from './card-transaction';

const database = useTestDatabase();
const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
const platformId = 'Platform:0195aaaa-0000-7000-8000-000000000001';
const card = { id: 'Card:0195aaaa-0000-7000-8000-00000000000c', platformId, state: 'ACTIVE', currency: 'USD' };
let subjectPrefix: string;
let count = 0;

/** A cards app on this file's database and subject prefix: the tests stop one and start another on the same data. */
const startApp = (): Promise<INestMicroservice> =>
  startServiceApp(
    {
      service: 'cards',
      defaults: loadConfig({}),
      // Sweeps far apart: the test runs each sweep itself, at the clock's time.
      overrides: { provisioningSweepSeconds: 3_600, pullSweepSeconds: 3_600 },
      module: (config) => AppModule.register(config, clock),
    },
    { databaseUrl: database.url, subjectPrefix },
  );

/** Records an authorization as the controller does once the ledger hold is placed (the hold needs accounts). */
const authorizeWith = async (app: INestMicroservice, descriptor: string): Promise<string> => {
  count += 1;
  const cardTransactionId = `CardTransaction:0195aaaa-0000-7000-8000-${String(count).padStart(12, '0')}`;
  await app.get(EventSourcing).handle(
    cardTransactionId,
    cardTransactionDecider,
    (state) =>
      authorizeCardTransaction(
        {
          type: 'AuthorizeCardTransaction',
          data: { cardTransactionId, card, accountId: 'InternalAccount:a1', amount: 1250n, currency: 'USD', merchant: { descriptor } },
          metadata: { now: clock.now() },
        },
        state,
      ),
    tokenContext(platformId),
  );
  return cardTransactionId;
};

const get = (app: INestMicroservice, cardTransactionId: string, platform = platformId): Promise<CardTransactionWire> =>
  app
    .get(ServiceClient)
    .request<CardTransactionWire>(
      cardTransactionSubjects.get,
      { cardTransactionId },
      { context: tokenContext(platform), timeoutMs: 30_000 },
    );

const sweep = async (app: INestMicroservice): Promise<number> => {
  const appended = await app.get(CardPullTimer).sweep();
  // The sweep answers once appended; the GET reads the read model.
  await app.get(EventSourcing).projections.waitFor(await app.get(EventSourcing).store.headPosition());
  return appended;
};

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
});

afterAll(async () => {
  await deleteEventsStream(subjectPrefix);
});

it('confirms a 005 pull on the sweep 30 s after the authorization, not before; an immediate pull is never swept', async () => {
  const app = await startApp();
  try {
    const delayed = await authorizeWith(app, 'SLOW MERCHANT 005');
    const immediate = await authorizeWith(app, 'FAST MERCHANT');
    expect((await get(app, delayed)).pullSummary).toEqual({ count: 1, totalAmount: 1250, pendingCount: 1 });
    expect((await get(app, immediate)).pullSummary).toEqual({ count: 1, totalAmount: 1250, pendingCount: 0 });
    clock.advance(DELAYED_PULL_MS - 1);
    expect(await sweep(app)).toBe(0);
    expect((await get(app, delayed)).pullSummary.pendingCount).toBe(1);
    clock.advance(1);
    expect(await sweep(app)).toBe(1);
    const confirmed = await get(app, delayed);
    expect(confirmed).toMatchObject({
      status: 'AUTHORIZED',
      pullSummary: { count: 1, totalAmount: 1250, pendingCount: 0 },
      lastEventAt: clock.now().toISOString(),
    });
    expect(await sweep(app)).toBe(0);
    // The confirmation goes on with the authorization's story, caused by its last event (decision 0029).
    const events = (await app.get(EventSourcing).store.readStream(delayed)).events;
    const [authorized, pullConfirmed] = [events[events.length - 2], events[events.length - 1]];
    expect(pullConfirmed?.type).toBe('PullConfirmed');
    expect(pullConfirmed?.metadata).toMatchObject({ correlationId: authorized?.metadata.correlationId, causationId: authorized?.eventId });
  } finally {
    await app.close();
  }
});

it('confirms a pull that was pending when cards stopped, at the first sweep after the restart', async () => {
  let app = await startApp();
  const delayed = await authorizeWith(app, 'RESTART 005');
  await app.close();
  clock.advance(DELAYED_PULL_MS + 1_000);
  app = await startApp();
  try {
    expect((await get(app, delayed)).pullSummary.pendingCount).toBe(1);
    expect(await sweep(app)).toBe(1);
    expect((await get(app, delayed)).pullSummary.pendingCount).toBe(0);
  } finally {
    await app.close();
  }
});

it("answers another platform's transaction, and an unknown one, as not found", async () => {
  const app = await startApp();
  try {
    const id = await authorizeWith(app, 'TENANCY');
    const foreign = await domainErrorOf(get(app, id, 'Platform:0195bbbb-0000-7000-8000-000000000002'));
    expect(foreign).toBeInstanceOf(DomainError);
    expect(foreign.code).toBe('TRANSACTION_NOT_FOUND');
    expect((await domainErrorOf(get(app, 'CardTransaction:0195aaaa-0000-7000-8000-999999999999'))).code).toBe('TRANSACTION_NOT_FOUND');
  } finally {
    await app.close();
  }
});
