import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EntitySchema } from '@mikro-orm/core';
import { Client } from 'pg';
import { createTestDatabase, requireNats, type TestDatabase, testUrls, uniqueSubjectPrefix } from '@corridor/testing';
import { connectionBudget, EventSourcing, EventSourcingModule } from './event-sourcing.module';
import { consoleLogger } from './logger';
import type { Projection } from './projection-runner';

// Two replicas of every service must fit in PostgreSQL's default 100 connections. Each process
// holds at most DATABASE_POOL_SIZE: this drives one service's EventSourcing hard (commands that
// append and wait for their read model, plain reads, all at once) and counts its connections in
// pg_stat_activity the whole time.

type TallyRow = { id: string; count: number };
const TallyEntity = new EntitySchema<TallyRow>({
  name: 'BudgetTallyRow',
  tableName: 'tallies',
  properties: { id: { type: 'string', primary: true }, count: { type: 'integer' } },
});
const tallies: Projection<TallyRow> = {
  name: 'tallies',
  version: 1,
  canHandle: ['Counted'],
  entity: TallyEntity,
  keyOf: (event) => event.streamId,
  evolve: (row, event) => ({ id: event.streamId, count: (row?.count ?? 0) + 1 }),
};
const decider = { initialState: () => 0, evolve: (count: number) => count + 1 };
const context = () => ({
  platformId: 'Platform:budget',
  actor: { kind: 'system' as const, name: 'budget-spec' },
  requestId: randomUUID(),
  correlationId: randomUUID(),
});

describe('one service process under load stays within DATABASE_POOL_SIZE connections', () => {
  let database: TestDatabase;
  let admin: Client;

  beforeAll(async () => {
    await requireNats();
    database = await createTestDatabase();
    admin = new Client({ connectionString: testUrls.postgresAdmin() });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  it.each([6, 8])('DATABASE_POOL_SIZE=%i: at most that many connections while 400 commands and 400 reads run at once', async (poolSize) => {
    const schema = `budget${poolSize}`;
    @Module({
      imports: [
        EventSourcingModule.forRoot({
          service: `budget-${poolSize}`,
          connectionString: database.url,
          schema,
          natsUrl: testUrls.nats(),
          subjectPrefix: uniqueSubjectPrefix(),
          migrationsDirectory: join(__dirname, 'test-migrations'),
          projections: [tallies],
          toIntegrationEvent: () => null,
          logger: consoleLogger('budget', 'warn'),
          poolSize,
        }),
      ],
    })
    class BudgetModule {}
    const app = await NestFactory.createApplicationContext(BudgetModule, { logger: false });
    await app.init();
    const eventSourcing = app.get(EventSourcing);
    const connections = async () =>
      Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1`, [database.name])).rows[0].n);
    let most = await connections();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await connections());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const streams = Array.from({ length: 400 }, () => `Tally:${randomUUID()}`);
      const commands = Array.from({ length: 400 }, (_, index) =>
        eventSourcing.handle(streams[index % streams.length]!, decider, () => [{ type: 'Counted', data: {} }], context()),
      );
      const reads = Array.from({ length: 400 }, (_, index) =>
        eventSourcing.read('budget-read', `SELECT count FROM ${schema}.tallies WHERE id = $1`, [streams[index % streams.length]]),
      );
      const outcomes = await Promise.allSettled([...commands, ...reads]);
      expect(outcomes.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
      // Every command waited for its read model, so the read model shows all of them.
      const [shown] = await eventSourcing.read<{ total: number }>(
        'budget-total',
        `SELECT sum(count)::int AS total FROM ${schema}.tallies`,
        [],
      );
      expect(shown?.total).toBe(400);
    } finally {
      sampling = false;
      await sampler;
      await app.close();
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(connectionBudget(poolSize).total);
  });
});
