export {
  type AppendMetadata,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type Upcasters,
  WrongExpectedVersionError,
  isWrongExpectedVersionError,
  upcast,
} from './types';
export { createPostgresEventStore, type PostgresEventStoreOptions } from './postgres-event-store';
export { ensureEventStoreSchema } from './postgres-schema';
export { createKurrentDbEventStore, type KurrentDbEventStoreOptions, type KurrentRecorded, toStoredEvent } from './kurrentdb-event-store';
export { copyEvents, copyGroups, type CopyEventsOptions, type CopyEventsResult } from './copy-events';
export {
  createServiceEventStore,
  describeEventStore,
  EVENT_STORE_KINDS,
  type EventStoreChoice,
  eventStoreChoiceFrom,
  type ServiceEventStoreOptions,
  serviceStreamPrefix,
} from './store-selection';
export { handleCommand, type CommandResult } from './command-handler';
export {
  ProjectionRunner,
  ormProjectionSql,
  type Projection,
  type ProjectionError,
  type ProjectionRows,
  type ProjectionRunnerOptions,
  type ProjectionSql,
  type ProjectionStatus,
} from './projection-runner';
export {
  createShadowRebuild,
  differingColumns,
  retiredSchemaOf,
  shadowSchemaOf,
  type DifferenceKind,
  type RowDifference,
  type ShadowDiff,
  type ShadowProgress,
  type ShadowRebuild,
  type ShadowRebuildOptions,
} from './shadow-rebuild';
export {
  OutboxRelay,
  ensureEventsStream,
  integrationEvent,
  type IntegrationEvent,
  type OutboxRelayOptions,
  type OutboxStatus,
} from './outbox-relay';
export { migrate } from './migrate';
export { type Logger, consoleLogger } from './logger';
export { START_NATS, START_POSTGRES, natsUnreachable, postgresUnreachable } from './infra-errors';
export {
  DEFAULT_DATABASE_POOL_SIZE,
  EVENT_STORE,
  EventSourcing,
  EventSourcingModule,
  type EventSourcingOptions,
  type BusinessOutcome,
  connectionBudget,
} from './event-sourcing.module';
export { asOfTime, foldAsOf } from './as-of';
export {
  eventSourcingForService,
  eventSourcingSettingsFrom,
  type EventSourcedServiceConfig,
  type EventSourcingSettings,
  type ServiceEventSourcingParts,
} from './service-event-sourcing';
export { uniqueValueHolder } from './unique-value-holder';
export { foldEvents, type Evolver } from './fold-events';
export { findPage, timeRange } from './find-page';
export { PeriodicSweep } from './periodic-sweep';
export { resumedContext } from './resume-story';
export { inTransaction } from './transaction';
export {
  DEFAULT_SNAPSHOT_EVERY,
  createPostgresSnapshotStore,
  saveSnapshotQuietly,
  snapshotDue,
  snapshotEveryFrom,
  type Snapshot,
  type SnapshotCodec,
  type SnapshotStore,
} from './snapshot-store';
export { type CommandOptions, type CommandSnapshots } from './command-handler';
export {
  DEFAULT_COMMAND_STREAM_MEMORY,
  StreamMemory,
  commandStreamMemoryFrom,
  type KnownStream,
  type StreamMemoryResult,
} from './stream-memory';
export { RecentlySeen } from './recently-seen';
export { snapshotDdl } from './postgres-schema';
export {
  DEFAULT_OUTBOX_MAX_ATTEMPTS,
  countOpenDeadLetters,
  listDeadLetters,
  parseOutboxMaxAttempts,
  resolveDeadLetters,
  type DeadLetter,
  type DeadLetterState,
} from './outbox-dead-letters';
