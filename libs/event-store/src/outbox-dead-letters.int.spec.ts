import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Global, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import { OBSERVABILITY, Observability } from '@corridor/contracts';
import { createTestDatabase, requireNats, type TestDatabase, testUrls, uniqueSubjectPrefix } from '@corridor/testing';
import { EventSourcing, EventSourcingModule } from './event-sourcing.module';
import { consoleLogger } from './logger';
import { resolveDeadLetters } from './outbox-dead-letters';

// A service whose outbox set an event aside says so where an operator looks: its /health turns
// degraded (the outbox part names how many) and /metrics counts it, until the dead letter is
// retried or skipped (issue 22 item 3, decision 0026).

const context = () => ({
  platformId: 'Platform:dead',
  actor: { kind: 'system' as const, name: 'dead-letter-spec' },
  requestId: randomUUID(),
  correlationId: randomUUID(),
});
const decider = { initialState: () => 0, evolve: (count: number) => count + 1 };

describe('outbox dead letters in /health and /metrics', () => {
  let database: TestDatabase;
  let admin: Client;

  beforeAll(async () => {
    await requireNats();
    database = await createTestDatabase();
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });

  it('turns the outbox part degraded and counts the dead letter until it is skipped', async () => {
    const observability = new Observability();
    @Global()
    @Module({ providers: [{ provide: OBSERVABILITY, useValue: observability }], exports: [OBSERVABILITY] })
    class ObservedModule {}
    const prefix = uniqueSubjectPrefix();
    @Module({
      imports: [
        ObservedModule,
        EventSourcingModule.forRoot({
          service: 'deadletters',
          connectionString: database.url,
          schema: 'deadletters',
          natsUrl: testUrls.nats(),
          subjectPrefix: prefix,
          migrationsDirectory: join(__dirname, 'test-migrations'),
          projections: [],
          toIntegrationEvent: (event) => {
            if (event.type === 'Poisoned') throw new Error('no mapping for this event');
            return { subject: `events.deadletters.Thing.${event.type}`, payload: { id: event.eventId } };
          },
          logger: consoleLogger('deadletters', 'error'),
          poolSize: 4,
          outboxMaxAttempts: 2,
        }),
      ],
    })
    class DeadLettersModule {}
    const app = await NestFactory.createApplicationContext(DeadLettersModule, { logger: false });
    await app.init();
    try {
      const eventSourcing = app.get(EventSourcing);
      await eventSourcing.handle(`Thing:${randomUUID()}`, decider, () => [{ type: 'Poisoned', data: {} }], context());
      const later = await eventSourcing.handle(`Thing:${randomUUID()}`, decider, () => [{ type: 'Counted', data: {} }], context());
      const checkpoint = async () =>
        BigInt((await admin.query(`SELECT position FROM deadletters.outbox_checkpoints`)).rows[0]?.position ?? 0);
      const laterPosition = later.events[0]!.globalPosition;
      for (let attempt = 0; (await checkpoint()) < laterPosition && attempt < 100; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await checkpoint()).toBe(laterPosition);

      const report = await observability.report();
      expect(report.status).toBe('degraded');
      expect(report.parts['outbox']).toMatchObject({ status: 'degraded', deadLetters: 1 });
      const metrics = (await Promise.all(observability.metricsSources.map((source) => source.metrics()))).join('\n');
      expect(metrics).toMatch(/corridor_outbox_dead_letters\{service="deadletters"\} 1/);
      expect(metrics).toMatch(/corridor_outbox_dead_lettered_total\{relay="deadletters-outbox"\} 1/);

      const [dead] = (await admin.query(`SELECT global_position FROM deadletters.outbox_dead_letters`)).rows;
      await resolveDeadLetters(admin, 'deadletters', 'deadletters-outbox', String(dead.global_position), 'skip');
      expect((await observability.report()).parts['outbox']).toMatchObject({ status: 'ok', deadLetters: 0 });
    } finally {
      await app.close();
    }
  });
});
