import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  Optional,
} from '@nestjs/common';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { EntitySchema } from '@mikro-orm/core';
import { connect, type ConnectionOptions, type NatsConnection } from 'nats';
import { Pool } from 'pg';
import { Counter, Gauge, Registry } from 'prom-client';
import { type Event, eventsStreamName, OBSERVABILITY, Observability, type PartHealth, type RequestContext } from '@corridor/contracts';
import { currentContext, traceCarrier } from '@corridor/telemetry';
import type { Logger } from './logger';
import { handleCommand, toNewEvents } from './command-handler';
import { createServiceEventStore, describeEventStore, type EventStoreChoice } from './store-selection';
import { resumedContext } from './resume-story';
import { type EventStore, type NewEvent, type RecordedEvent, WrongExpectedVersionError } from './types';
import { ProjectionRunner, type Projection } from './projection-runner';
import { OutboxRelay, ensureEventsStream } from './outbox-relay';
import { countOpenDeadLetters, DEFAULT_OUTBOX_MAX_ATTEMPTS } from './outbox-dead-letters';
import { migrate } from './migrate';
import { type Evolver, foldEvents } from './fold-events';
import { storedEventsController } from './stored-events-query';
import { ensureEventStoreSchema } from './postgres-schema';
import { createPostgresSnapshotStore, DEFAULT_SNAPSHOT_EVERY, type SnapshotCodec, type SnapshotStore } from './snapshot-store';
import { DEFAULT_COMMAND_STREAM_MEMORY, StreamMemory } from './stream-memory';

export const EVENT_STORE = 'EVENT_STORE';

export type EventSourcingOptions = {
  service: string;
  connectionString: string;
  schema: string;
  natsUrl: string;
  /** The service's bus credentials (libs/messaging's NatsAuth, decision 0025). */
  natsAuth?: Pick<ConnectionOptions, 'user' | 'pass' | 'inboxPrefix' | 'tls'>;
  subjectPrefix: string;
  migrationsDirectory: string;
  projections: Projection<any>[];
  /** Extra MikroORM entities the service queries that no projection writes. */
  entities?: EntitySchema<any>[];
  /** Maps a stored event to the integration event other services see (null: stays private). */
  toIntegrationEvent: (event: RecordedEvent) => { subject: string; payload: unknown } | null;
  /** The service's logger: the projection runner and the outbox relay report every failure through it. */
  logger: Logger;
  /**
   * The business outcome an appended event stands for (a payment completed or failed and why, a
   * ledger operation, an agent action's end), counted in corridor_outcomes_total; null for the rest.
   */
  outcomeOf?: (event: RecordedEvent) => BusinessOutcome | null;
  /**
   * PostgreSQL connections this process may hold in all (DATABASE_POOL_SIZE, default 6): MikroORM
   * gets ORM_CONNECTIONS of them, the outbox relay's session one, and the process's one pg pool the
   * rest (event store, reads, projection batches, consumers' processed stores).
   */
  poolSize?: number;
  /** Tries of an event that fails on its own before it becomes a dead letter (OUTBOX_MAX_ATTEMPTS; default 5). */
  outboxMaxAttempts?: number;
  /** Where the service's events live (EVENT_STORE_<SERVICE> / EVENT_STORE / EVENTSTORE_URL, store-selection.ts); default PostgreSQL. */
  eventStore?: EventStoreChoice;
  /** Events appended since the last snapshot before a command takes a new one (SNAPSHOT_EVERY, 0 = never; default 500). */
  snapshotEvery?: number;
  /** Streams whose state this process remembers between commands (COMMAND_STREAM_MEMORY, 0 = none; default 2,048; stream-memory.ts). */
  commandStreamMemory?: number;
};

/**
 * One already-decided event for EventSourcing.append. occurredAt and integration are for a writer
 * that renders what the event's integration event carries before the append (decision 0054): it
 * dates the event itself so what it rendered and what the store records agree; without them the
 * store dates the event and the integration event carries the data alone.
 */
export type AppendedEvent = {
  type: string;
  data: Record<string, unknown>;
  context: RequestContext;
  occurredAt?: string;
  integration?: Record<string, unknown>;
};

/** One decided event for EventSourcing.appendAtomically, with what only its integration event carries (decision 0057). */
export type AtomicEvent = Event & { integration?: Record<string, unknown> };

/** What an event means to an operator: a kind of work (payment, ledger_operation, agent_action), its outcome and why. */
export type BusinessOutcome = { kind: string; outcome: string; reason?: string };

/** Seven database services × 2 replicas × 6 = 84, which leaves PostgreSQL's default 100 room for migrations and a psql. */
export const DEFAULT_DATABASE_POOL_SIZE = 6;
/** MikroORM's own pool (knex): queries through `em` and projection batches that need the ORM. */
const ORM_CONNECTIONS = 2;
/** The outbox relay's session, which holds its leadership lock. */
const RELAY_CONNECTIONS = 1;
const MIN_SHARED_CONNECTIONS = 2;
/** A checkout waits this long for a free connection before it fails (a 503 to the caller). */
const POOL_CHECKOUT_TIMEOUT_MS = 10_000;

/** How a process's connection budget is split; exported for the connection-count test. */
export const connectionBudget = (poolSize = DEFAULT_DATABASE_POOL_SIZE) => {
  const shared = Math.max(MIN_SHARED_CONNECTIONS, poolSize - ORM_CONNECTIONS - RELAY_CONNECTIONS);
  return { shared, orm: ORM_CONNECTIONS, relay: RELAY_CONNECTIONS, total: shared + ORM_CONNECTIONS + RELAY_CONNECTIONS };
};

/** What a controller needs to run a command: load, decide, append, and wait for its read models. */
@Injectable()
export class EventSourcing implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly store: EventStore;
  /** Snapshots for the command path (a cache; see snapshot-store.ts), and how often commands take them. */
  readonly snapshots: SnapshotStore;
  readonly snapshotEvery: number;
  /** Which adapter holds this service's events (PostgreSQL by default). */
  readonly eventStoreChoice: EventStoreChoice;
  private orm?: MikroORM;
  private runner?: ProjectionRunner;
  private readonly readFollowers: ((events: readonly RecordedEvent[]) => void)[] = [];
  private relay?: OutboxRelay;
  private nats?: NatsConnection;
  private readonly projectedTypes: ReadonlySet<string>;
  /** The process's one pg pool, shared by the store, reads, projection batches and consumers. */
  readonly pool: Pool;
  private readonly observability: Observability;
  private readonly poolMetrics = new Registry();
  private readonly outcomes: Counter<'service' | 'kind' | 'outcome' | 'reason'>;
  private queuedAppends: QueuedAppend[] = [];
  private appendsInFlight = 0;
  /** What this process's commands read and appended, decided on before reading (stream-memory.ts); none when turned off. */
  private readonly streamMemory: StreamMemory | undefined;

  constructor(
    @Inject('EVENT_SOURCING_OPTIONS') private readonly options: EventSourcingOptions,
    @Optional() @Inject(OBSERVABILITY) observability?: Observability,
  ) {
    const budget = connectionBudget(options.poolSize);
    // min = max: a connection once opened stays, so a busy moment later never has to open one
    // against a server other clients may have filled meanwhile ("too many clients").
    this.pool = new Pool({
      connectionString: options.connectionString,
      min: budget.shared,
      max: budget.shared,
      connectionTimeoutMillis: POOL_CHECKOUT_TIMEOUT_MS,
    });
    // An idle client that loses its server: the pool drops it and the next checkout reconnects.
    this.pool.on('error', (error) =>
      options.logger.warn({ err: error, service: options.service }, 'An idle PostgreSQL connection failed; the pool replaces it.'),
    );
    this.eventStoreChoice = options.eventStore ?? { kind: 'postgres' };
    this.store = createServiceEventStore({
      choice: this.eventStoreChoice,
      connectionString: options.connectionString,
      schema: options.schema,
      pool: this.pool,
    });
    this.snapshots = createPostgresSnapshotStore({ connectionString: options.connectionString, schema: options.schema, pool: this.pool });
    this.snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    this.projectedTypes = new Set(options.projections.flatMap((projection) => projection.canHandle));
    // Without a service app around it (an int spec), the parts are still reported, to nobody.
    this.observability = observability ?? new Observability();
    const pool = this.pool;
    const labels = { service: options.service };
    new Gauge({
      name: 'corridor_outbox_dead_letters',
      help: 'Integration events set aside by the outbox relay and not yet retried or skipped (npm run outbox:dead-letters).',
      labelNames: ['service'],
      registers: [this.poolMetrics],
      async collect() {
        // Unknown while PostgreSQL does not answer: left out, as the outbox lag is. Not logged per
        // scrape: the postgres part of /health names the outage, and the relay logs its own failures.
        const open = await countOpenDeadLetters(pool, options.schema).catch(() => undefined);
        if (open !== undefined) this.set(labels, open);
      },
    });
    new Gauge({
      name: 'corridor_db_pool_connections',
      help: "The process's pg pool: open connections, idle ones, and checkouts waiting for one.",
      labelNames: ['service', 'state'],
      registers: [this.poolMetrics],
      collect() {
        this.set({ ...labels, state: 'total' }, pool.totalCount);
        this.set({ ...labels, state: 'idle' }, pool.idleCount);
        this.set({ ...labels, state: 'waiting' }, pool.waitingCount);
        this.set({ ...labels, state: 'max' }, budget.shared);
      },
    });
    this.outcomes = new Counter({
      name: 'corridor_outcomes_total',
      help:
        'Business outcomes this process recorded, by kind (payment, ledger_operation, agent_action), outcome and reason (a failure ' +
        'reason, or "none").',
      labelNames: ['service', 'kind', 'outcome', 'reason'],
      registers: [this.poolMetrics],
    });
    this.streamMemory = streamMemoryOf(options, this.poolMetrics);
  }

  /** Counts what the appended events mean (outcomeOf); a replayed command appended nothing and counts nothing. */
  private count(events: readonly RecordedEvent[]): void {
    const { outcomeOf, service } = this.options;
    if (!outcomeOf) return;
    for (const event of events) {
      const outcome = outcomeOf(event);
      if (outcome) this.outcomes.inc({ service, kind: outcome.kind, outcome: outcome.outcome, reason: outcome.reason ?? 'none' });
    }
  }

  get em() {
    if (!this.orm) throw new Error('EventSourcing used before the application bootstrapped.');
    return this.orm.em.fork();
  }

  /**
   * Tells `follower` of every batch of this service's events its projection runner reads, in store
   * order, its own appends and other replicas' alike (register before bootstrap, from a constructor).
   */
  followEvents(follower: (events: readonly RecordedEvent[]) => void): void {
    this.readFollowers.push(follower);
  }

  get projections(): ProjectionRunner {
    if (!this.runner) throw new Error('EventSourcing used before the application bootstrapped.');
    return this.runner;
  }

  async onApplicationBootstrap(): Promise<void> {
    const { options } = this;
    // The store's own tables first, so a service migration may index the events table.
    await ensureEventStoreSchema(options.connectionString, options.schema);
    await migrate({ connectionString: options.connectionString, schema: options.schema, directory: options.migrationsDirectory });
    this.orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: options.connectionString,
      schema: options.schema,
      entities: [...options.projections.map((projection) => projection.entity), ...(options.entities ?? [])],
      discovery: { warnWhenNoEntities: false },
      allowGlobalContext: false,
      debug: false,
      pool: { min: ORM_CONNECTIONS, max: ORM_CONNECTIONS },
    });
    this.runner = new ProjectionRunner({
      store: this.store,
      orm: this.orm,
      pool: this.pool,
      schema: options.schema,
      projections: options.projections,
      logger: options.logger,
      service: options.service,
      onRead: (events) => this.readFollowers.forEach((follower) => follower(events)),
    });
    await this.runner.start();
    // No async stack traces: each JetStream publish would otherwise capture two stacks it never shows.
    this.nats = await connect({ servers: options.natsUrl, ...options.natsAuth, name: `${options.service}-outbox`, noAsyncTraces: true });
    const streamName = eventsStreamName(options.subjectPrefix);
    await ensureEventsStream(this.nats, { name: streamName, subjects: [`${options.subjectPrefix}.events.>`] });
    this.relay = new OutboxRelay({
      store: this.store,
      connectionString: options.connectionString,
      schema: options.schema,
      name: `${options.service}-outbox`,
      jetstream: this.nats.jetstream(),
      maxAttempts: options.outboxMaxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS,
      logger: options.logger,
      toIntegrationEvent: (event) => {
        const integration = options.toIntegrationEvent(event);
        return integration && { ...integration, subject: `${options.subjectPrefix}.${integration.subject}` };
      },
    });
    await this.relay.start();
    this.observe();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const part of ['postgres', 'projections', 'outbox']) this.observability.removePart(part);
    for (const source of [this.runner?.metrics, this.relay?.metrics, this.poolMetrics])
      if (source) this.observability.removeMetrics(source);
    await this.relay?.stop();
    await this.runner?.stop();
    await this.nats?.drain();
    await this.orm?.close(true);
    await this.store.close();
    await this.pool.end();
  }

  /** PostgreSQL, the read models and the outbox in the service's /health and /metrics. */
  private observe(): void {
    const runner = this.runner!;
    const relay = this.relay!;
    this.observability.addPart({
      name: 'postgres',
      health: async (): Promise<PartHealth> => {
        await this.pool.query('SELECT 1');
        return { status: 'ok', pool: { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount } };
      },
    });
    this.observability.addPart({ name: 'projections', health: () => this.projectionsHealth() });
    this.observability.addPart({
      name: 'outbox',
      health: async (): Promise<PartHealth> => {
        const status = relay.status();
        // Dead letters keep the service degraded until an operator retries or skips each one.
        const deadLetters = await countOpenDeadLetters(this.pool, this.options.schema);
        const degraded = status.failures >= OUTBOX_DEGRADED_AFTER_FAILURES || deadLetters > 0;
        return { status: degraded ? 'degraded' : 'ok', ...status, deadLetters };
      },
    });
    for (const source of [runner.metrics, relay.metrics, this.poolMetrics]) this.observability.addMetrics(source);
  }

  /** degraded when a read model is halted (named, with its event and cause), down when the store cannot be read. */
  async projectionsHealth(): Promise<PartHealth> {
    const status = this.projections.status();
    // A head that cannot be read is the answer itself: the part is down, with the store's error.
    let head: bigint | undefined;
    let headError: string | undefined;
    try {
      head = await this.store.headPosition();
    } catch (error) {
      headError = error instanceof Error ? error.message : String(error);
    }
    const projections = Object.fromEntries(
      status.projections.map(({ name, ...rest }) => [
        name,
        { ...rest, ...(head === undefined ? {} : { head: head.toString(), lag: (head - BigInt(rest.position)).toString() }) },
      ]),
    );
    const halted = status.projections.filter((projection) => projection.halted).map((projection) => projection.name);
    const state = status.storeError || head === undefined ? 'down' : halted.length > 0 ? 'degraded' : 'ok';
    return {
      status: state,
      eventStore: describeEventStore(this.eventStoreChoice),
      ...(halted.length > 0 ? { halted } : {}),
      ...(status.storeError ? { storeError: status.storeError } : {}),
      ...(headError ? { headError } : {}),
      projections,
    };
  }

  /**
   * A named (prepared once per connection) read for the hottest queries, where the ORM's cost per
   * call shows in the benchmark. Everything else reads through `em`.
   */
  async read<Row>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    return (await this.pool.query({ name, text, values })).rows as Row[];
  }

  /**
   * A stream's state from all its events (no snapshot, so `events` is the whole stream), for a
   * driver that looks before it commands: a sweep or processor deciding whether a stream is due.
   */
  async load<State, E extends Event>(
    streamId: string,
    decider: Evolver<State, E>,
  ): Promise<{ state: State; events: RecordedEvent[]; version: number }> {
    const { events, version } = await this.store.readStream(streamId);
    return { state: foldEvents(decider, events), events, version };
  }

  /**
   * Runs one command against one stream and returns once every projection has applied its events,
   * so a read right after the reply sees the change (read-your-writes).
   */
  async handle<State, E extends Event>(
    streamId: string,
    decider: { evolve: (state: State, event: E) => State; initialState: () => State; snapshot?: SnapshotCodec<State> },
    decide: (state: State) => E[],
    context: RequestContext,
    options: {
      commandId?: string;
      assumeNew?: boolean;
      /** For a caller that reads nothing back (a process manager): answer once appended. */ skipProjectionWait?: boolean;
    } = {},
  ): Promise<{ state: State; events: RecordedEvent[]; replayed: boolean }> {
    const { commandId, assumeNew, skipProjectionWait } = options;
    const result = await handleCommand(this.store, streamId, decider, decide, {
      metadata: metadataOf(context, commandId),
      ...(commandId ? { commandId } : {}),
      ...(assumeNew ? { assumeNew } : {}),
      snapshots: { store: this.snapshots, every: this.snapshotEvery, logger: this.options.logger },
      ...(this.streamMemory ? { memory: this.streamMemory } : {}),
    });
    // Only events some read model shows are worth waiting for; a uniqueness claim, say, is not.
    // And only for the read models that show them: a halted one elsewhere does not hold this reply.
    this.count(result.events);
    if (!skipProjectionWait) await this.waitForReadModels(result.events);
    if (result.events.length > 0) this.relay?.nudge();
    return result;
  }

  /**
   * Appends already decided events to several streams all or nothing, each at its expected version
   * (0: the stream must be new), as one commit where the store can (appendToStreamsAtomically), and
   * returns once every read model that shows one of the events has applied it (read-your-writes).
   * A stream at another version rejects the call with its WrongExpectedVersionError; nothing is written then.
   * An event's `integration` is stored in its metadata for its integration event alone (decision 0057).
   */
  async appendAtomically(
    appends: { streamId: string; events: readonly AtomicEvent[]; expectedVersion: number }[],
    context: RequestContext,
  ): Promise<{ version: number; events: RecordedEvent[] }[]> {
    const metadata = metadataOf(context);
    const withIntegration = (events: readonly AtomicEvent[]): NewEvent[] =>
      toNewEvents(events).map((event, index) => {
        const integration = events[index]!.integration;
        return integration ? { ...event, metadata: { ...metadata, integration } } : event;
      });
    const results = await this.store.appendToStreamsAtomically(
      appends.map(({ streamId, events, expectedVersion }) => ({ streamId, events: withIntegration(events), expectedVersion })),
      { metadata },
    );
    const appended = results.flatMap((result) => result.events).sort((a, b) => (a.globalPosition < b.globalPosition ? -1 : 1));
    this.count(appended);
    await this.waitForReadModels(appended);
    if (appended.length > 0) this.relay?.nudge();
    return results;
  }

  /**
   * The context a timer or sweep acts on one stream in: its story's correlation, caused by the
   * stream's last event (resume-story.ts). Costs one read of the stream.
   */
  async resumeStory(streamId: string, context: RequestContext): Promise<RequestContext> {
    const { events } = await this.store.readStream(streamId);
    return resumedContext(context, events[events.length - 1]);
  }

  /**
   * Resolves once every read model that shows one of these events has applied them (read-your-
   * writes); read models that show none of them are not waited for, so one halted elsewhere in the
   * service does not hold this reply. Rejects at once (503 READ_MODEL_HALTED) if one that does is halted.
   */
  async waitForReadModels(events: readonly RecordedEvent[]): Promise<void> {
    // Only events some read model shows are worth waiting for; a uniqueness claim, say, is not.
    const shown = events.filter((event) => this.projectedTypes.has(event.type));
    const last = shown[shown.length - 1];
    if (!last) return;
    await this.projections.waitFor(last.globalPosition, undefined, this.projections.projectionsFor(shown.map((event) => event.type)));
  }

  /**
   * Appends events that a writer keeping the stream's state between commands has already decided
   * (see AccountWriter in apps/accounts); the store still refuses the append unless the stream is
   * at expectedVersion. Each event is recorded with the context of the request that decided it.
   *
   * Group commit across streams: while MAX_APPENDS_IN_FLIGHT appends are on their way to the
   * store, appends to other streams queue and then go together in one `appendToStreams` (one
   * statement, one commit). Each caller still learns only its own stream's outcome. It does not
   * wait for projections: a reply that promises read-your-writes waits with `projections.waitFor`.
   */
  append(streamId: string, events: AppendedEvent[], expectedVersion: number): Promise<{ version: number; events: RecordedEvent[] }> {
    if (events.length === 0) return Promise.reject(new Error('EventSourcing.append needs at least one event.'));
    return new Promise((resolve, reject) => {
      this.queuedAppends.push({
        streamId,
        events: events.map(({ type, data, context, occurredAt, integration }) => ({
          type,
          data,
          metadata: { ...metadataOf(context), ...(occurredAt ? { occurredAt } : {}), ...(integration ? { integration } : {}) },
        })),
        expectedVersion,
        resolve,
        reject,
      });
      this.sendAppends();
    });
  }

  private sendAppends(): void {
    while (this.appendsInFlight < MAX_APPENDS_IN_FLIGHT && this.queuedAppends.length > 0) {
      // One entry per stream per statement: a second append to a stream waits for the next one.
      const batch: QueuedAppend[] = [];
      const later: QueuedAppend[] = [];
      const streams = new Set<string>();
      for (const queued of this.queuedAppends) {
        if (batch.length < MAX_STREAMS_PER_APPEND && !streams.has(queued.streamId)) {
          streams.add(queued.streamId);
          batch.push(queued);
        } else later.push(queued);
      }
      this.queuedAppends = later;
      this.appendsInFlight += 1;
      // The statement's default metadata; an event dated by its writer keeps its own date, the others get the store's.
      const { occurredAt: _dated, ...metadata } = batch[0]!.events[0]!.metadata!;
      void this.store
        .appendToStreams(batch, { metadata })
        .then(
          (results) =>
            results.forEach((result, index) => {
              if (result instanceof WrongExpectedVersionError) return batch[index]!.reject(result);
              this.count(result.events);
              batch[index]!.resolve(result);
            }),
          (error: unknown) => batch.forEach((queued) => queued.reject(error)),
        )
        .finally(() => {
          this.appendsInFlight -= 1;
          this.relay?.nudge();
          this.sendAppends();
        });
    }
  }
}

/** The process's stream memory and its counter (corridor_command_stream_memory_total), or none when COMMAND_STREAM_MEMORY is 0. */
const streamMemoryOf = (options: EventSourcingOptions, registry: Registry): StreamMemory | undefined => {
  const capacity = options.commandStreamMemory ?? DEFAULT_COMMAND_STREAM_MEMORY;
  if (capacity === 0) return undefined;
  const results = new Counter({
    name: 'corridor_command_stream_memory_total',
    help:
      'Commands and the stream memory: hit (decided on what this process remembered, no read), miss (nothing remembered), stale ' +
      '(remembered state was behind the stream: forgotten, read and decided again).',
    labelNames: ['service', 'result'],
    registers: [registry],
  });
  return new StreamMemory(capacity, (result) => results.inc({ service: options.service, result }));
};

/** An outbox that failed this many batches in a row shows as degraded: consumers are not getting events. */
const OUTBOX_DEGRADED_AFTER_FAILURES = 3;

/** Appends of other streams wait behind this many statements in flight and then go together. */
const MAX_APPENDS_IN_FLIGHT = 2;
const MAX_STREAMS_PER_APPEND = 64;

type QueuedAppend = {
  streamId: string;
  events: NewEvent[];
  expectedVersion: number;
  resolve: (appended: { version: number; events: RecordedEvent[] }) => void;
  reject: (error: unknown) => void;
};

/**
 * What an event records of the work that appended it. The cause is the one the context names, else
 * that of the current work (the message or job being handled), else the request itself; the trace
 * context is the active span's, so the outbox can continue the trace.
 */
const metadataOf = (context: RequestContext, commandId?: string) => {
  const { traceparent, tracestate } = traceCarrier();
  return {
    platformId: context.platformId,
    correlationId: context.correlationId,
    causationId: context.causationId ?? currentContext()?.causationId ?? context.requestId,
    requestId: context.requestId,
    actor: context.actor,
    ...(commandId ? { commandId } : {}),
    ...(traceparent ? { traceparent } : {}),
    ...(tracestate ? { tracestate } : {}),
  };
};

@Module({})
export class EventSourcingModule {
  static forRoot(options: EventSourcingOptions): DynamicModule {
    return {
      module: EventSourcingModule,
      global: true,
      providers: [{ provide: 'EVENT_SOURCING_OPTIONS', useValue: options }, EventSourcing],
      // Every service with a store answers GET /events for it (stored-events-query.ts).
      controllers: [storedEventsController(options.service, EventSourcing)],
      exports: [EventSourcing],
    };
  }
}
