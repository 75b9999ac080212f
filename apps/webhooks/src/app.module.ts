import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { join } from 'node:path';
import { Pool } from 'pg';
import { CLOCK, type Clock, OBSERVABILITY, type Observability } from '@corridor/contracts';
import { migrate } from '@corridor/event-store';
import { createLogger, MessagingModule, observedPart, postgresHealth, redisHealth } from '@corridor/messaging';
import type { WebhooksServiceConfig } from './config';
import { deliveryHealth } from './delivery/delivery-health';
import { dueBacklog, pendingCount } from './delivery/delivery-store';
import { ApprovalReporter } from './delivery/approval-report';
import { Dispatcher, WEBHOOKS_CONFIG, WEBHOOKS_POOL } from './delivery/dispatcher';
import { EventIntake } from './delivery/event-intake';
import { WebhookMetrics } from './metrics';
import { SigningKeys } from './signing/signing-keys';
import { WebhooksController } from './webhooks.controller';

/** The pool's lifetime is the app's; migrations run before anything reads or writes. */
class PoolLifecycle implements OnApplicationShutdown {
  constructor(@Inject(WEBHOOKS_POOL) private readonly pool: Pool) {}

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}

const poolLogger = createLogger('webhooks:pool');

@Module({})
export class AppModule {
  static register(config: WebhooksServiceConfig, options: { clock?: Clock } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        MessagingModule.forRoot({
          natsUrl: config.natsUrl,
          natsAuth: config.natsAuth,
          subjectPrefix: config.subjectPrefix,
          name: 'webhooks',
        }),
      ],
      controllers: [WebhooksController],
      providers: [
        { provide: CLOCK, useValue: options.clock ?? config.clock },
        { provide: WEBHOOKS_CONFIG, useValue: config },
        {
          provide: WEBHOOKS_POOL,
          useFactory: async () => {
            await migrate({ connectionString: config.databaseUrl, schema: config.schema, directory: join(__dirname, 'migrations') });
            // The process's whole PostgreSQL budget (DATABASE_POOL_SIZE): webhooks keeps no event store.
            const pool = new Pool({
              connectionString: config.databaseUrl,
              max: config.databasePoolSize,
              connectionTimeoutMillis: 10_000,
              idleTimeoutMillis: 30_000,
            });
            pool.on('error', (error) => poolLogger.warn({ err: error }, 'An idle PostgreSQL connection failed; the pool replaces it.'));
            return pool;
          },
        },
        {
          provide: SigningKeys,
          useFactory: (pool: Pool) => new SigningKeys(pool, config.keyEncryptionKey),
          inject: [WEBHOOKS_POOL],
        },
        {
          provide: WebhookMetrics,
          useFactory: (pool: Pool, clock: Clock) =>
            new WebhookMetrics(
              () => pendingCount(pool),
              async () => (await dueBacklog(pool, clock.now())).oldestWaitSeconds,
            ),
          inject: [WEBHOOKS_POOL, CLOCK],
        },
        PoolLifecycle,
        // GET /metrics of the common health server serves these after the process metrics.
        {
          provide: 'WEBHOOKS_METRICS_SOURCE',
          inject: [{ token: OBSERVABILITY, optional: true }, WebhookMetrics],
          useFactory: (observability: Observability | undefined, metrics: WebhookMetrics) => observability?.addMetrics(metrics.registry),
        },
        observedPart('postgres', [WEBHOOKS_POOL], (pool: Pool) => postgresHealth(() => pool.query('SELECT 1'))),
        observedPart('redis', [Dispatcher], (dispatcher: Dispatcher) => redisHealth(() => dispatcher.redis)),
        observedPart(
          'delivery',
          [WEBHOOKS_POOL, CLOCK, Dispatcher],
          (pool: Pool, clock: Clock, dispatcher: Dispatcher) => async () =>
            deliveryHealth(await dueBacklog(pool, clock.now()), config.stuckAfterSeconds, dispatcher.held()),
        ),
        ApprovalReporter,
        Dispatcher,
        EventIntake,
      ],
    };
  }
}
