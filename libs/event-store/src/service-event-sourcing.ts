import type { DynamicModule } from '@nestjs/common';
import { EventSourcingModule, type EventSourcingOptions } from './event-sourcing.module';

/** The parsed settings every event-sourced service has (libs/messaging's ServiceConfig carries these fields). */
export type EventSourcedServiceConfig = {
  databaseUrl: string;
  schema: string;
  natsUrl: string;
  natsAuth: EventSourcingOptions['natsAuth'];
  subjectPrefix: string;
  databasePoolSize: number;
};

/** What one service adds of its own: its name, logger, migrations, read models and the events others see. */
export type ServiceEventSourcingParts = Pick<
  EventSourcingOptions,
  'service' | 'logger' | 'migrationsDirectory' | 'projections' | 'toIntegrationEvent' | 'outcomeOf'
>;

/**
 * The one way a service wires its event store, read models and outbox: the connection settings
 * come from its parsed config the same way for every service, so only what differs is written in
 * its app.module.ts. PostgreSQL's health part comes with it (EventSourcing reports it at bootstrap).
 */
export const eventSourcingForService = (config: EventSourcedServiceConfig, parts: ServiceEventSourcingParts): DynamicModule =>
  EventSourcingModule.forRoot({
    ...parts,
    connectionString: config.databaseUrl,
    schema: config.schema,
    poolSize: config.databasePoolSize,
    natsUrl: config.natsUrl,
    natsAuth: config.natsAuth,
    subjectPrefix: config.subjectPrefix,
  });
