// The provisioning timer in process on real PostgreSQL and NATS with a clock the test moves: a
// 005 card stays PENDING_ISSUE until 30 s after its issue and then activates on the sweep; a card
// whose provisioning was under way when cards stopped is activated by a new app on the same
// database (the due time is persisted); a 001 card is never swept again.
import type { INestMicroservice } from '@nestjs/common';
import { type CardWire, subjects } from '@corridor/contracts';
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
import { cardDecider } from './card';
import { issueCommand, platformId } from './card.fixtures';
import { sandboxIssuer } from './card-issuer';
import { CardProvisioningProcessor } from './card-provisioning-processor';
import { issueCard } from './issue-card';

const database = useTestDatabase();
const clock = createControllableClock(new Date('2026-03-01T10:00:00.000Z'));
let subjectPrefix: string;
let cardCount = 0;

const startApp = async (): Promise<INestMicroservice> => {
  const { healthPort: _healthPort, ...defaults } = loadConfig({});
  // Sweeps far apart: the test runs each sweep itself, at the clock's time.
  const config = {
    ...defaults,
    healthPort: 0,
    databaseUrl: database.url,
    subjectPrefix,
    logLevel: 'warn',
    provisioningSweepSeconds: 3_600,
  };
  const app = await createServiceApp(AppModule.register(config, clock), {
    service: 'cards',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  return app;
};

/** Records an issue as the controller does after its lookups (the cardholder and accounts need other services). */
const issueWith = async (app: INestMicroservice, platformCardId: string): Promise<string> => {
  cardCount += 1;
  const cardId = `Card:01950000-0000-7000-8000-${String(cardCount).padStart(12, '0')}`;
  const issued = await sandboxIssuer.requestCard({ cardId, cardholderId: 'Customer:x', platformCardId, requestedAt: clock.now() });
  const command = issueCommand({ cardId, platformCardId, requestedPlatformCardId: platformCardId, issued });
  const now = { ...command, metadata: { ...command.metadata, now: clock.now() } };
  await app.get(EventSourcing).handle(cardId, cardDecider, (state) => issueCard(now, state), tokenContext(platformId), { assumeNew: true });
  return cardId;
};

const stateOf = async (app: INestMicroservice, cardId: string): Promise<string> =>
  (
    await app
      .get(ServiceClient)
      .request<CardWire>(subjects.cards.card.get, { cardId }, { context: tokenContext(platformId), timeoutMs: 30_000 })
  ).state;

const sweep = async (app: INestMicroservice): Promise<void> => {
  await app.get(CardProvisioningProcessor).sweep();
  // The sweep answers once appended; the GET reads the read model.
  await app.get(EventSourcing).projections.waitFor(await app.get(EventSourcing).store.headPosition());
};

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
});

afterAll(async () => {
  await deleteEventsStream(subjectPrefix);
});

it('activates a 005 card 30 s after its issue, not before', async () => {
  const app = await startApp();
  try {
    const cardId = await issueWith(app, 'delayed-005');
    await sweep(app);
    expect(await stateOf(app, cardId)).toBe('PENDING_ISSUE');
    clock.advance(29_999);
    await sweep(app);
    expect(await stateOf(app, cardId)).toBe('PENDING_ISSUE');
    clock.advance(1);
    await sweep(app);
    expect(await stateOf(app, cardId)).toBe('ACTIVE');
  } finally {
    await app.close();
  }
});

it('resumes provisioning after a restart, and never sweeps a 001 card again', async () => {
  let app = await startApp();
  const delayed = await issueWith(app, 'restart-005');
  const pending = await issueWith(app, 'stays-001');
  await sweep(app);
  await app.close();
  clock.advance(31_000);
  app = await startApp();
  try {
    await sweep(app);
    expect(await stateOf(app, delayed)).toBe('ACTIVE');
    expect(await stateOf(app, pending)).toBe('PENDING_ISSUE');
    clock.advance(3_600_000);
    await sweep(app);
    expect(await stateOf(app, pending)).toBe('PENDING_ISSUE');
  } finally {
    await app.close();
  }
});
