import type { DynamicModule } from '@nestjs/common';
import { EventSourcingModule, type EventSourcingOptions } from './event-sourcing.module';
import { parseOutboxMaxAttempts } from './outbox-dead-letters';
import { snapshotEveryFrom } from './snapshot-store';
import { commandStreamMemoryFrom } from './stream-memory';
import { type EventStoreChoice, eventStoreChoiceFrom } from './store-selection';

/** The event sourcing settings every event-sourced service has, parsed by its config.ts with eventSourcingSettingsFrom. */
export type EventSourcingSettings = {
  /** EVENT_STORE_<SERVICE> / EVENT_STORE / EVENTSTORE_URL / EVENTSTORE_STREAM_PREFIX (store-selection.ts). */
  eventStore: EventStoreChoice;
  /** SNAPSHOT_EVERY (snapshot-store.ts). */
  snapshotEvery: number;
  /** OUTBOX_MAX_ATTEMPTS (outbox-dead-letters.ts). */
  outboxMaxAttempts: number;
  /** COMMAND_STREAM_MEMORY (stream-memory.ts). */
  commandStreamMemory: number;
};

export const eventSourcingSettingsFrom = (service: string, env: NodeJS.ProcessEnv): EventSourcingSettings => ({
  eventStore: eventStoreChoiceFrom(service, env),
  snapshotEvery: snapshotEveryFrom(env),
  outboxMaxAttempts: parseOutboxMaxAttempts(env['OUTBOX_MAX_ATTEMPTS']),
  commandStreamMemory: commandStreamMemoryFrom(env),
});

/** The parsed settings every event-sourced service has (libs/messaging's ServiceConfig carries these fields). */
export type EventSourcedServiceConfig = {
  databaseUrl: string;
  schema: string;
  natsUrl: string;
  natsAuth: EventSourcingOptions['natsAuth'];
  subjectPrefix: string;
  databasePoolSize: number;
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS, COMMAND_STREAM_MEMORY: eventSourcingSettingsFrom parses them in config.ts. */
  eventSourcing: EventSourcingSettings;
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
export const eventSourcingForService = (config: EventSourcedServiceConfig, parts: ServiceEventSourcingParts): DynamicModule => {
  const settings = config.eventSourcing;
  return EventSourcingModule.forRoot({
    ...parts,
    ...settings,
    connectionString: config.databaseUrl,
    schema: config.schema,
    poolSize: config.databasePoolSize,
    natsUrl: config.natsUrl,
    natsAuth: config.natsAuth,
    subjectPrefix: config.subjectPrefix,
  });
};
