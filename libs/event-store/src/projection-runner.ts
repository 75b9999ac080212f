import type { EntityManager, EntityMetadata, EntitySchema } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type Pool, type PoolClient, types as pgTypes } from 'pg';
import { Gauge, Registry } from 'prom-client';
import { DomainError } from '@corridor/contracts';
import { checkpointDdl, ddlLockKey } from './postgres-schema';
import { assertSchemaName, assertTableName } from './sql-names';
import { type Logger, createMutex, createWakeup } from './logger';
import { isConnectionError } from './infra-errors';
import type { EventStore, RecordedEvent } from './types';

/** A read model: one row per key, rebuilt by folding `evolve` over the events it can handle. */
export type Projection<Row extends object> = {
  name: string;
  version: number;
  canHandle: readonly string[];
  entity: EntitySchema<Row>;
  /** Primary key value of the row this event touches. */
  keyOf: (event: RecordedEvent) => string;
  /** Pure. Returns the new row, or null to delete it. Never throws on a recorded event. */
  evolve: (row: Row | null, event: RecordedEvent) => Row | null;
  /**
   * Optional: load and write the batch's rows with plain SQL instead of MikroORM's unit of work
   * (a projection on a hot path: one set-based statement per batch). Both run inside the batch's
   * transaction, the one that also moves the checkpoint. `entity` still names the table for
   * rebuilds and for the service's own queries. Without it the runner uses MikroORM.
   */
  rows?: ProjectionRows<Row>;
};

/** SQL (node-postgres: `$1, $2…` placeholders, JS arrays as PostgreSQL arrays) inside the projection batch's transaction. */
export type ProjectionSql = {
  schema: string;
  query: <Result = Record<string, unknown>>(text: string, values: unknown[]) => Promise<Result[]>;
};

export type ProjectionRows<Row extends object> = {
  /** The current rows with these keys, by key (a key without a row is simply absent). */
  load: (sql: ProjectionSql, keys: string[]) => Promise<Map<string, Row>>;
  /**
   * Writes the folded rows: `upserts` are whole rows to insert or replace, `deletes` keys to remove,
   * `previous` the rows `load` returned for them (what they replace, for tables derived from the rows).
   */
  save: (sql: ProjectionSql, changes: { upserts: Row[]; deletes: string[]; previous: ReadonlyMap<string, Row> }) => Promise<void>;
  /**
   * Optional: further tables of the schema that `save` keeps in step with the rows in the same
   * transaction (counters derived from them, say). A rebuild empties them with the rows, and a
   * shadow rebuild builds and swaps them with the projection's table, so they never disagree.
   */
  derivedTables?: readonly string[];
};

export type ProjectionRunnerOptions = {
  store: EventStore;
  orm: MikroORM;
  schema: string;
  projections: Projection<any>[];
  /**
   * Optional pg pool for batches that only projections with their own `rows` handle: they then
   * run on one pooled connection instead of a MikroORM transaction (fewer round trips, no ORM).
   */
  pool?: Pool;
  batchSize?: number;
  pollIntervalMs?: number;
  /** Required: a runner that cannot say why a batch failed is how a read model stalls in silence. */
  logger: Logger;
  /** The service's name, for log lines, metric labels and the 503 a halted read model answers. */
  service?: string;
  /** First wait before a halted projection is tried again; it doubles up to MAX_HALT_RETRY_MS. */
  haltRetryMs?: number;
  /**
   * Optional: told of every batch of events the runner reads, in store order, whichever replica
   * applies it; a replica's in-memory state follows the other replicas' writes this way. A throw
   * is logged and changes nothing else.
   */
  onRead?: (events: readonly RecordedEvent[]) => void;
};

/** What /health, /metrics and `npm run replay -- --status` show of one projection. */
export type ProjectionStatus = {
  name: string;
  position: string;
  halted: boolean;
  failures: number;
  lastError?: ProjectionError;
};

export type ProjectionError = {
  message: string;
  at: string;
  /** The event the projection could not apply, when the failure is one event's. */
  event?: { position: string; streamId: string; type: string; eventId: string };
};

type Halt = ProjectionError & { retryAt: number; attempts: number };
type Waiter = { position: bigint; names: readonly string[]; resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
type Row = Record<string, unknown>;

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_POLL_INTERVAL_MS = 200;
/** While a caller waits, a batch that found nothing is usually an append still behind the xmin watermark. */
const WAITING_POLL_INTERVAL_MS = 5;
const DEFAULT_WAIT_TIMEOUT_MS = 5_000;
const MAX_FAILURE_BACKOFF_MS = 5_000;
const DEFAULT_HALT_RETRY_MS = 1_000;
const MAX_HALT_RETRY_MS = 60_000;
/** A rebuild that reads nothing new this many times in a row is stuck behind a transaction that never ends. */
const MAX_IDLE_DRAIN_ROUNDS = 2_000;

/** Thrown inside a batch whose checkpoint moved backwards (a rebuild elsewhere) so it is re-planned. */
class StaleBatch extends Error {}

/**
 * Keeps a service's read models up to date with its event store.
 *
 * Healthy projections move together: one read of the store and one transaction per batch, which
 * also moves their checkpoints. When such a batch fails, each projection is applied alone, so the
 * ones that can apply it move on; a projection that still fails is applied event by event up to the
 * event it cannot apply, and is then halted there: logged (projection, position, stream, type,
 * cause), shown in `status()` (and so in /health and /metrics), recorded in its checkpoint row for
 * `npm run replay -- --status`, and retried alone with a growing delay. The others never wait for
 * it; a command that would wait for a halted read model is refused at once (503 READ_MODEL_HALTED).
 */
export class ProjectionRunner {
  private readonly schema: string;
  private readonly service: string;
  private readonly positions = new Map<string, bigint>();
  private readonly halts = new Map<string, Halt>();
  private readonly failureCounts = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  private readonly exclusive = createMutex();
  private readonly wakeup = createWakeup();
  private readonly logger: Logger;
  private readonly allNames: readonly string[];
  /** A failure to read the store or reach PostgreSQL at all: every projection waits for it. */
  private storeError: ProjectionError | undefined;
  private running = false;
  private loopDone: Promise<void> | undefined;
  readonly metrics: Registry;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.schema = assertSchemaName(options.schema);
    this.service = options.service ?? options.schema;
    this.logger = options.logger;
    this.allNames = options.projections.map((projection) => projection.name);
    if (new Set(this.allNames).size !== this.allNames.length)
      throw new Error(`Projection names must be unique: ${this.allNames.join(', ')}.`);
    this.metrics = this.createMetrics();
  }

  /** Loads checkpoints, rebuilds projections whose version changed, then catches up in the background. */
  async start(): Promise<void> {
    if (this.running) return;
    const stale = await this.loadCheckpoints();
    for (const name of stale) {
      this.logger.info(
        { service: this.service, projection: name },
        'Projection version changed; rebuilding it from the start of the store.',
      );
      // A rebuild that meets a poison event leaves that projection halted (logged, in /health);
      // the service still starts and serves everything else.
      await this.rebuild(name).catch((error: unknown) =>
        this.logger.error(
          { err: error, service: this.service, projection: name },
          `Rebuilding projection ${name} failed; it stays halted.`,
        ),
      );
    }
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeup.nudge();
    await this.loopDone;
    this.loopDone = undefined;
    for (const waiter of this.waiters) this.settle(waiter, new Error('The projection runner stopped before reaching the position.'));
  }

  /** Lowest position every projection has applied. */
  position(): bigint {
    return this.lowest(this.allNames);
  }

  /**
   * Resolves once the projections named (default: all) have applied every event up to `position`.
   * It wakes the loop at once; callers that arrive during a batch share the next one. Rejects at
   * once with a 503 READ_MODEL_HALTED when one of them is halted below the position.
   */
  waitFor(position: bigint, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS, names: readonly string[] = this.allNames): Promise<void> {
    const halted = this.haltedBelow(names, position);
    if (halted) return Promise.reject(this.haltedError(halted));
    if (this.lowest(names) >= position) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        names,
        resolve,
        reject,
        timer: setTimeout(() => this.settle(waiter, this.behindError(names, position, timeoutMs)), timeoutMs),
      };
      this.waiters.add(waiter);
      this.wakeup.nudge();
    });
  }

  /** Names of the projections that show events of these types. */
  projectionsFor(types: Iterable<string>): string[] {
    const wanted = new Set(types);
    return this.options.projections
      .filter((projection) => projection.canHandle.some((type) => wanted.has(type)))
      .map((projection) => projection.name);
  }

  nudge(): void {
    this.wakeup.nudge();
  }

  /** Every projection's position, halt and last failure, as this process sees them. */
  status(): { storeError?: ProjectionError; projections: ProjectionStatus[] } {
    return {
      ...(this.storeError ? { storeError: this.storeError } : {}),
      projections: this.allNames.map((name) => {
        const halt = this.halts.get(name);
        return {
          name,
          position: (this.positions.get(name) ?? 0n).toString(),
          halted: halt !== undefined,
          failures: this.failureCounts.get(name) ?? 0,
          ...(halt ? { lastError: { message: halt.message, at: halt.at, ...(halt.event ? { event: halt.event } : {}) } } : {}),
        };
      }),
    };
  }

  /** Deletes the projection's rows and replays it from the first event. */
  async rebuild(name: string): Promise<void> {
    const projection = this.options.projections.find((candidate) => candidate.name === name);
    if (!projection) throw new Error(`Unknown projection ${name}.`);
    // A rebuild may run without start() (the replay script): the checkpoint table must exist first.
    if (this.positions.size === 0) await this.loadCheckpoints();
    // Replaying at least as far as the live rows had got means a rebuild never shows less than
    // before, even when the head is briefly held back by a transaction still open.
    const reached = this.positions.get(name) ?? 0n;
    await this.exclusive(() =>
      this.options.orm.em.fork().transactional(async (em) => {
        await em.execute(`SELECT position FROM ${this.schema}.projection_checkpoints WHERE name = ? FOR UPDATE`, [name]);
        await em.nativeDelete(projection.entity, {});
        for (const table of projection.rows?.derivedTables ?? []) await em.execute(`DELETE FROM ${this.schema}.${assertTableName(table)}`);
        await em.execute(
          `UPDATE ${this.schema}.projection_checkpoints SET position = 0, version = ?, updated_at = now(), halted_at = NULL WHERE name = ?`,
          [projection.version, name],
        );
      }),
    );
    this.positions.set(name, 0n);
    this.halts.delete(name);
    const head = await this.options.store.headPosition();
    await this.drainTo(head > reached ? head : reached, [name]);
  }

  private async loadCheckpoints(): Promise<string[]> {
    const em = this.options.orm.em.fork();
    const table = `${this.schema}.projection_checkpoints`;
    await em.transactional(async (tx) => {
      await tx.execute('SELECT pg_advisory_xact_lock(?)', [ddlLockKey(this.schema)]);
      await tx.execute(checkpointDdl(this.schema));
      for (const projection of this.options.projections) {
        await tx.execute(`INSERT INTO ${table} (name, version, position) VALUES (?, ?, 0) ON CONFLICT (name) DO NOTHING`, [
          projection.name,
          projection.version,
        ]);
      }
    });
    const rows = await em.execute<{ name: string; version: number; position: string }[]>(`SELECT name, version, position FROM ${table}`);
    const stale: string[] = [];
    for (const projection of this.options.projections) {
      const row = rows.find((candidate) => candidate.name === projection.name);
      this.positions.set(projection.name, BigInt(row?.position ?? 0));
      if (row && row.version !== projection.version) stale.push(projection.name);
    }
    return stale;
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let read = 0;
      try {
        read = await this.exclusive(() => this.step());
        failures = 0;
        this.storeError = undefined;
      } catch (error) {
        failures += 1;
        this.storeError = { message: messageOf(error), at: new Date().toISOString() };
        this.logger.error(
          { err: error, service: this.service, schema: this.schema, after: this.position().toString(), failures },
          'Projection runner could not read or apply the store; it will retry from the checkpoints.',
        );
        await this.wakeup.sleep(
          Math.min(MAX_FAILURE_BACKOFF_MS, (this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS) * 2 ** failures),
        );
        continue;
      }
      // A short batch reached the head the store shows now: reading again at once would only find
      // nothing. An event appended since then is read at the next poll, as one appended while the
      // loop slept; a waitFor for it nudges the wakeup, so its sleep ends at once.
      if (read < (this.options.batchSize ?? DEFAULT_BATCH_SIZE)) {
        await this.wakeup.sleep(
          this.waiters.size > 0 ? WAITING_POLL_INTERVAL_MS : (this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS),
        );
      }
    }
  }

  private async drainTo(head: bigint, names: readonly string[]): Promise<void> {
    for (let idle = 0; this.lowest(names) < head;) {
      const read = await this.exclusive(() => this.step());
      const halted = this.haltedBelow(names, head);
      if (halted) throw this.haltedError(halted);
      idle = read === 0 ? idle + 1 : 0;
      if (idle >= MAX_IDLE_DRAIN_ROUNDS) throw new Error(`Projections are stuck at ${this.lowest(names)} below head ${head}.`);
      if (read === 0) await new Promise((resolve) => setTimeout(resolve, WAITING_POLL_INTERVAL_MS));
    }
  }

  /** One round: the healthy projections together, then each halted one whose retry is due, alone. */
  private async step(): Promise<number> {
    const healthy = this.options.projections.filter((projection) => !this.halts.has(projection.name));
    let read = healthy.length > 0 ? await this.runGroup(healthy) : 0;
    const now = Date.now();
    for (const projection of this.options.projections) {
      const halt = this.halts.get(projection.name);
      if (halt && halt.retryAt <= now) read += await this.retryHalted(projection);
    }
    this.releaseWaiters();
    return read;
  }

  /** One batch read after the group's lowest checkpoint, applied to every projection of the group. */
  private async runGroup(group: Projection<any>[]): Promise<number> {
    const after = this.lowest(group.map((projection) => projection.name));
    const events = await this.options.store.readAll({ after, limit: this.options.batchSize ?? DEFAULT_BATCH_SIZE });
    const last = events[events.length - 1];
    if (!last) return 0;
    this.tellRead(events);
    try {
      await this.applyAndRecord(group, after, events, last.globalPosition);
    } catch (error) {
      if (error instanceof StaleBatch) {
        await this.loadCheckpoints();
        return events.length;
      }
      // PostgreSQL itself is unreachable: no projection can do better alone; the loop backs off.
      if (isConnectionError(error)) throw error;
      this.logger.warn(
        {
          err: error,
          service: this.service,
          after: after.toString(),
          last: last.globalPosition.toString(),
          projections: group.map((projection) => projection.name),
        },
        'A projection batch failed; applying it to each projection alone so the others move on.',
      );
      for (const projection of group) await this.applyAlone(projection, events);
    }
    return events.length;
  }

  private tellRead(events: readonly RecordedEvent[]): void {
    try {
      this.options.onRead?.(events);
    } catch (error) {
      this.logger.error(
        { err: error, service: this.service, first: events[0]?.globalPosition.toString(), count: events.length },
        'A follower of the events the projection runner reads failed on a batch; the read models are not affected.',
      );
    }
  }

  /** The batch for one projection in its own transaction; on failure, finds and halts on the event. */
  private async applyAlone(projection: Projection<any>, events: RecordedEvent[]): Promise<void> {
    const position = this.positions.get(projection.name) ?? 0n;
    const last = events[events.length - 1]!.globalPosition;
    if (position >= last) return;
    try {
      await this.applyAndRecord([projection], position, events, last);
      await this.recovered(projection);
    } catch (error) {
      if (error instanceof StaleBatch) return void (await this.loadCheckpoints());
      if (isConnectionError(error)) throw error;
      await this.haltOnPoison(projection, events, error);
    }
  }

  /** Applies the projection's pending events one per transaction, up to the first that fails, and halts there. */
  private async haltOnPoison(projection: Projection<any>, events: RecordedEvent[], batchError: unknown): Promise<void> {
    const start = this.positions.get(projection.name) ?? 0n;
    const pending = events.filter((event) => event.globalPosition > start && projection.canHandle.includes(event.type));
    for (const event of pending) {
      const position = this.positions.get(projection.name) ?? 0n;
      try {
        await this.applyAndRecord([projection], position, [event], event.globalPosition);
      } catch (error) {
        if (error instanceof StaleBatch) return void (await this.loadCheckpoints());
        if (isConnectionError(error)) throw error;
        // Everything before the poison event is applied, so the read model stops exactly there.
        if (event.globalPosition - 1n > position) await this.applyAndRecord([projection], position, [], event.globalPosition - 1n);
        await this.halt(projection, error, event);
        return;
      }
    }
    // Each event applied alone: the batch failed for a reason that went away (a deadlock, say).
    const last = events[events.length - 1]!.globalPosition;
    await this.applyAndRecord([projection], this.positions.get(projection.name) ?? 0n, [], last);
    this.logger.warn(
      { err: batchError, service: this.service, projection: projection.name },
      `Projection ${projection.name} failed a batch but applied each of its events alone.`,
    );
    await this.recovered(projection);
  }

  private async retryHalted(projection: Projection<any>): Promise<number> {
    const after = this.positions.get(projection.name) ?? 0n;
    const events = await this.options.store.readAll({ after, limit: this.options.batchSize ?? DEFAULT_BATCH_SIZE });
    if (events.length === 0) {
      await this.recovered(projection);
      return 0;
    }
    await this.applyAlone(projection, events);
    return this.halts.has(projection.name) ? 0 : events.length;
  }

  private async halt(projection: Projection<any>, error: unknown, event: RecordedEvent): Promise<void> {
    const attempts = (this.halts.get(projection.name)?.attempts ?? 0) + 1;
    const delay = Math.min(MAX_HALT_RETRY_MS, (this.options.haltRetryMs ?? DEFAULT_HALT_RETRY_MS) * 2 ** (attempts - 1));
    const halt: Halt = {
      message: messageOf(error),
      at: new Date().toISOString(),
      event: { position: event.globalPosition.toString(), streamId: event.streamId, type: event.type, eventId: event.eventId },
      retryAt: Date.now() + delay,
      attempts,
    };
    this.halts.set(projection.name, halt);
    this.failureCounts.set(projection.name, (this.failureCounts.get(projection.name) ?? 0) + 1);
    this.logger.error(
      {
        err: error,
        service: this.service,
        projection: projection.name,
        position: halt.event!.position,
        streamId: event.streamId,
        eventType: event.type,
        eventId: event.eventId,
        attempts,
        retryInMs: delay,
      },
      `Projection ${projection.name} is halted: it cannot apply ${event.type} of ${event.streamId} at position ${event.globalPosition} ` +
        `(${halt.message}). ` +
        'Its read model stops before that event and commands waiting for it are refused; the other projections go on.',
    );
    await this.recordHalt(projection.name, halt);
    this.releaseWaiters();
  }

  private async recovered(projection: Projection<any>): Promise<void> {
    if (!this.halts.delete(projection.name)) return;
    this.logger.info(
      { service: this.service, projection: projection.name, position: (this.positions.get(projection.name) ?? 0n).toString() },
      `Projection ${projection.name} applied the event it was halted on and moves again.`,
    );
    await this.recordHalt(projection.name, undefined);
  }

  /** The halt in the checkpoint row, for operators (`npm run replay -- --status`); the last error stays after recovery. */
  private async recordHalt(name: string, halt: Halt | undefined): Promise<void> {
    const table = `${this.schema}.projection_checkpoints`;
    const text = halt
      ? `UPDATE ${table} SET halted_at = now(), last_error = $2, last_error_at = now(), last_error_event = $3 WHERE name = $1`
      : `UPDATE ${table} SET halted_at = NULL WHERE name = $1`;
    const values = halt ? [name, halt.message, halt.event ? JSON.stringify(halt.event) : null] : [name];
    try {
      if (this.options.pool) await this.options.pool.query(text, values);
      else await this.options.orm.em.fork().execute(text.replace(/\$\d/g, '?'), values);
    } catch (error) {
      this.logger.warn(
        { err: error, service: this.service, projection: name },
        'Could not record the projection halt in its checkpoint row.',
      );
    }
  }

  /** Applies the events to these projections in one transaction and records where each now stands. */
  private async applyAndRecord(projections: Projection<any>[], after: bigint, events: RecordedEvent[], last: bigint): Promise<void> {
    const advanced = this.needsOrm(projections, events)
      ? await this.options.orm.em
          .fork()
          .transactional(async (em) => this.applyBatch(await ormTransaction(em, this.schema), projections, after, events, last))
      : await this.inPlainTransaction((tx) => this.applyBatch(tx, projections, after, events, last));
    for (const [name, position] of advanced) this.positions.set(name, position);
  }

  /** True unless a pg pool is at hand and no projection without its own `rows` handles any event of the batch. */
  private needsOrm(projections: Projection<any>[], events: RecordedEvent[]): boolean {
    if (!this.options.pool) return true;
    return projections.some((projection) => !projection.rows && events.some((event) => projection.canHandle.includes(event.type)));
  }

  /**
   * A batch on one pooled connection. BEGIN and the checkpoint lock go in one round trip, the
   * last checkpoint update and COMMIT in another (simple-query strings: the server stops at the
   * first failing statement, so a failed update never commits).
   */
  private async inPlainTransaction<T>(work: (tx: BatchTransaction) => Promise<T>): Promise<T> {
    const client = await this.options.pool!.connect();
    let broken: unknown;
    try {
      const tx: BatchTransaction = {
        sql: { schema: this.schema, query: async (text, values) => (await client.query(text, values)).rows },
        begin: async (statements) => {
          const results = (await client.query(['BEGIN', ...statements].join('; '))) as unknown as {
            rows: { name: string; position: string }[];
          }[];
          return results[results.length - 1]!.rows;
        },
        finish: async (statement) => {
          await client.query(statement ? `${statement}; COMMIT` : 'COMMIT');
        },
      };
      return await work(tx);
    } catch (error) {
      broken = await client.query('ROLLBACK').then(
        () => undefined,
        (rollbackError: unknown) => rollbackError,
      );
      throw error;
    } finally {
      // A connection whose ROLLBACK failed is in an unknown state: drop it instead of reusing it.
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /**
   * Rows and checkpoints change in one transaction, so a crash leaves either both or neither. The
   * checkpoint rows are locked first: a second replica running the same projection waits here and
   * then skips what this one applied, instead of applying it twice.
   */
  private async applyBatch(
    tx: BatchTransaction,
    projections: Projection<any>[],
    after: bigint,
    events: RecordedEvent[],
    last: bigint,
  ): Promise<Map<string, bigint>> {
    const table = `${this.schema}.projection_checkpoints`;
    // Read models and their checkpoints are rebuilt from the store, so a batch need not wait for its
    // commit to reach disk: a crash loses rows and checkpoint together and the batch is applied again.
    // This takes one fsync off every command that waits for its read model.
    const rows = await tx.begin([
      'SET LOCAL synchronous_commit = off',
      `SELECT name, position FROM ${table} WHERE name IN (${projections.map((projection) => sqlText(projection.name)).join(', ')})
       FOR UPDATE`,
    ]);
    const advanced = new Map<string, bigint>();
    const moved: string[] = [];
    for (const projection of projections) {
      const stored = BigInt(rows.find((row) => row.name === projection.name)?.position ?? 0);
      if (stored < after) throw new StaleBatch();
      if (stored >= last) {
        advanced.set(projection.name, stored);
        continue;
      }
      const pending = events.filter((event) => event.globalPosition > stored && projection.canHandle.includes(event.type));
      if (projection.rows) await applyOwnRows(tx.sql, projection, pending);
      else await applyProjection(tx.em!, projection, pending);
      moved.push(projection.name);
      advanced.set(projection.name, last);
    }
    // Every projection this batch moved ends at the same position: one statement for all of them.
    await tx.finish(
      moved.length === 0
        ? undefined
        : `UPDATE ${table} SET position = ${last.toString()}, updated_at = now() WHERE name IN (${moved.map(sqlText).join(', ')})`,
    );
    return advanced;
  }

  private lowest(names: readonly string[]): bigint {
    let lowest: bigint | undefined;
    for (const name of names) {
      const position = this.positions.get(name) ?? 0n;
      if (lowest === undefined || position < lowest) lowest = position;
    }
    return lowest ?? BigInt(Number.MAX_SAFE_INTEGER) ** 2n;
  }

  private haltedBelow(names: readonly string[], position: bigint): string | undefined {
    return names.find((name) => this.halts.has(name) && (this.positions.get(name) ?? 0n) < position);
  }

  private haltedError(name: string): DomainError {
    const halt = this.halts.get(name);
    const where = halt?.event ? ` on ${halt.event.type} of ${halt.event.streamId} (position ${halt.event.position})` : '';
    return new DomainError(
      'READ_MODEL_HALTED',
      'unavailable',
      `The ${this.service} service's read model ${name} is halted${where}: ${halt?.message ?? 'unknown error'}. ` +
        `The change was recorded but cannot be shown yet; the operator sees it in the ${this.service} service's /health.`,
      { service: this.service, projection: name, ...(halt?.event ? { event: halt.event } : {}) },
    );
  }

  private behindError(names: readonly string[], position: bigint, timeoutMs: number): DomainError {
    const slowest = names.reduce(
      (slow, name) => ((this.positions.get(name) ?? 0n) < (this.positions.get(slow) ?? 0n) ? name : slow),
      names[0] ?? '',
    );
    return new DomainError(
      'READ_MODEL_BEHIND',
      'unavailable',
      `The ${this.service} service's read model ${slowest} did not reach position ${position} within ${timeoutMs} ms ` +
        (`(at ${this.positions.get(slowest) ?? 0n}${this.storeError ? `; the store answers: ${this.storeError.message}` : ''}). Retry ` +
          `the request with the same Idempotency-Key.`),
      { service: this.service, projection: slowest },
    );
  }

  private releaseWaiters(): void {
    for (const waiter of this.waiters) {
      const halted = this.haltedBelow(waiter.names, waiter.position);
      if (halted) this.settle(waiter, this.haltedError(halted));
      else if (this.lowest(waiter.names) >= waiter.position) this.settle(waiter);
    }
  }

  private settle(waiter: Waiter, error?: Error): void {
    if (!this.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    if (error) waiter.reject(error);
    else waiter.resolve();
  }

  /** Position, lag and halt of every projection, and failures, on a registry of this runner's own. */
  private createMetrics(): Registry {
    const registry = new Registry();
    const labelNames = ['service', 'projection'] as const;
    // Arrow functions read the runner; each gauge's collect() has the gauge as `this`.
    const each = (value: (name: string) => number) =>
      this.allNames.map((name) => ({ labels: { service: this.service, projection: name }, value: value(name) }));
    const position = (name: string) => this.positions.get(name) ?? 0n;
    const halted = (name: string) => this.halts.has(name);
    const failures = (name: string) => this.failureCounts.get(name) ?? 0;
    // The head needs PostgreSQL; when it does not answer, the lag is unknown and left out: the
    // runner's own loop and /health (projections: down, with the error) report the outage.
    const head = () => this.options.store.headPosition().catch(() => undefined);
    new Gauge({
      name: 'corridor_projection_position',
      help: 'Global position of the last event the projection applied.',
      labelNames,
      registers: [registry],
      collect() {
        for (const { labels, value } of each((name) => Number(position(name)))) this.set(labels, value);
      },
    });
    new Gauge({
      name: 'corridor_projection_lag_events',
      help: "Events in the store after the projection's position (head minus position).",
      labelNames,
      registers: [registry],
      async collect() {
        const reached = await head();
        if (reached === undefined) return;
        for (const { labels, value } of each((name) => Number(reached > position(name) ? reached - position(name) : 0n)))
          this.set(labels, value);
      },
    });
    new Gauge({
      name: 'corridor_projection_halted',
      help: '1 while the projection is halted on an event it cannot apply.',
      labelNames,
      registers: [registry],
      collect() {
        for (const { labels, value } of each((name) => (halted(name) ? 1 : 0))) this.set(labels, value);
      },
    });
    new Gauge({
      name: 'corridor_projection_failures',
      help: 'Times the projection was halted since the process started.',
      labelNames,
      registers: [registry],
      collect() {
        for (const { labels, value } of each((name) => failures(name))) this.set(labels, value);
      },
    });
    return registry;
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What a batch runs its statements on: a MikroORM transaction (em set) or a plain pg one. */
type BatchTransaction = {
  sql: ProjectionSql;
  em?: EntityManager;
  /** Opens the transaction (unless MikroORM did) and runs these statements; returns the last one's rows. */
  begin: (statements: string[]) => Promise<{ name: string; position: string }[]>;
  /** Runs the checkpoint update, if any, and commits (or leaves the commit to MikroORM). */
  finish: (statement: string | undefined) => Promise<void>;
};

type Execute = { execute: <Result>(sql: string, params?: unknown[]) => Promise<Result> };
type KnexTransaction = { client: { acquireConnection: () => Promise<Pick<PoolClient, 'query'>> } };

/**
 * A MikroORM transaction. A projection's own SQL runs on the transaction's pg connection itself
 * (knex hands a transaction always the same one), so it is written in PostgreSQL's terms — `$n`
 * placeholders, arrays as arrays — and shares the transaction with the ORM's statements.
 */
const ormTransaction = async (em: EntityManager, schema: string): Promise<BatchTransaction> => {
  const execute = (em as unknown as Execute).execute.bind(em);
  const connection = await em.getTransactionContext<KnexTransaction>()!.client.acquireConnection();
  return {
    em,
    // pg's default type parsers, as on the plain pool: MikroORM's connection returns timestamps as
    // strings, and a projection's own SQL must see the same rows whichever path loaded them.
    sql: {
      schema,
      query: async <Result>(text: string, values: unknown[]) => (await connection.query({ text, values, types: pgTypes })).rows as Result[],
    },
    begin: async (statements) => {
      let rows: { name: string; position: string }[] = [];
      for (const statement of statements) rows = await execute<{ name: string; position: string }[]>(statement);
      return rows;
    },
    finish: async (statement) => {
      if (statement) await execute(statement);
    },
  };
};

/**
 * A projection's ProjectionSql on a MikroORM transaction's connection, as the runner builds it for
 * a batch that also needs the ORM. Exported for the contract test every `rows` projection passes:
 * its load and save must see the same rows here as on a plain pool connection.
 */
export const ormProjectionSql = async (em: EntityManager, schema: string): Promise<ProjectionSql> => (await ormTransaction(em, schema)).sql;

/** A string literal for names the runner puts into SQL text (projection names: code, not input). */
const sqlText = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/** As applyProjection, with the projection's own set-based load and save. */
const applyOwnRows = async (sql: ProjectionSql, projection: Projection<Row>, events: RecordedEvent[]): Promise<void> => {
  if (events.length === 0) return;
  const rows = projection.rows!;
  const keys = [...new Set(events.map((event) => projection.keyOf(event)))];
  const existing = await rows.load(sql, keys);
  const folded = new Map<string, Row | null>(keys.map((key) => [key, existing.get(key) ?? null]));
  for (const event of events) {
    const key = projection.keyOf(event);
    folded.set(key, projection.evolve(folded.get(key) ?? null, event));
  }
  const upserts: Row[] = [];
  const deletes: string[] = [];
  for (const [key, row] of folded) {
    if (row !== null) upserts.push(row);
    else if (existing.has(key)) deletes.push(key);
  }
  await rows.save(sql, { upserts, deletes, previous: existing });
};

const plainRow = (meta: EntityMetadata<Row>, entity: Row): Row =>
  Object.fromEntries(meta.props.map((prop) => [prop.name, entity[prop.name]]));

/**
 * Folds the batch's events per row in memory, then writes each touched row once. The rows handed
 * to `evolve` are plain copies, so a pure evolve can spread them without dragging ORM state along.
 */
const applyProjection = async (em: EntityManager, projection: Projection<Row>, events: RecordedEvent[]): Promise<void> => {
  if (events.length === 0) return;
  const meta = em.getMetadata().get<Row>(projection.entity.meta.className);
  const primaryKey = meta.primaryKeys[0];
  if (!primaryKey) throw new Error(`Projection ${projection.name} has an entity without a primary key.`);
  const keys = [...new Set(events.map((event) => projection.keyOf(event)))];
  const existing = (await em.find(projection.entity, { [primaryKey]: { $in: keys } } as never)) as Row[];
  const managed = new Map(existing.map((entity) => [String(entity[primaryKey]), entity]));
  const folded = new Map<string, Row | null>(keys.map((key) => [key, managed.has(key) ? plainRow(meta, managed.get(key)!) : null]));
  for (const event of events) {
    const key = projection.keyOf(event);
    folded.set(key, projection.evolve(folded.get(key) ?? null, event));
  }
  for (const [key, row] of folded) {
    const entity = managed.get(key);
    if (row === null) {
      if (entity) em.remove(entity);
    } else if (entity) {
      for (const prop of meta.props) if (prop.name in row) entity[prop.name] = row[prop.name];
    } else {
      em.persist(em.create(projection.entity, row as never));
    }
  }
};
