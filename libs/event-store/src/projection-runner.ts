import type { EntityManager, EntityMetadata, EntitySchema } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import { checkpointDdl, ddlLockKey } from './postgres-schema';
import { assertSchemaName } from './sql-names';
import { type Logger, createMutex, createWakeup, silentLogger } from './logger';
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
  /** Writes the folded rows: `upserts` are whole rows to insert or replace, `deletes` keys to remove. */
  save: (sql: ProjectionSql, changes: { upserts: Row[]; deletes: string[] }) => Promise<void>;
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
  logger?: Logger;
};

type Waiter = { position: bigint; resolve: () => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
type Row = Record<string, unknown>;

const DEFAULT_BATCH_SIZE = 500;
const DEFAULT_POLL_INTERVAL_MS = 200;
/** While a caller waits, a batch that found nothing is usually an append still behind the xmin watermark. */
const WAITING_POLL_INTERVAL_MS = 5;
const DEFAULT_WAIT_TIMEOUT_MS = 5_000;
const MAX_FAILURE_BACKOFF_MS = 5_000;
/** A rebuild that reads nothing new this many times in a row is stuck behind a transaction that never ends. */
const MAX_IDLE_DRAIN_ROUNDS = 2_000;

/** Thrown inside a batch whose checkpoint moved backwards (a rebuild elsewhere) so it is re-planned. */
class StaleBatch extends Error {}

export class ProjectionRunner {
  private readonly schema: string;
  private readonly positions = new Map<string, bigint>();
  private readonly waiters = new Set<Waiter>();
  private readonly exclusive = createMutex();
  private readonly wakeup = createWakeup();
  private readonly logger: Logger;
  private running = false;
  private loopDone: Promise<void> | undefined;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.schema = assertSchemaName(options.schema);
    this.logger = options.logger ?? silentLogger;
    const names = options.projections.map((projection) => projection.name);
    if (new Set(names).size !== names.length) throw new Error(`Projection names must be unique: ${names.join(', ')}.`);
  }

  /** Loads checkpoints, rebuilds projections whose version changed, then catches up in the background. */
  async start(): Promise<void> {
    if (this.running) return;
    const stale = await this.loadCheckpoints();
    for (const name of stale) {
      this.logger.info({ projection: name }, 'Projection version changed; rebuilding it from the start of the store.');
      await this.rebuild(name);
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
    let lowest: bigint | undefined;
    for (const position of this.positions.values()) if (lowest === undefined || position < lowest) lowest = position;
    return lowest ?? BigInt(Number.MAX_SAFE_INTEGER) ** 2n;
  }

  /**
   * Resolves once every projection has applied all events up to `position`. It wakes the loop at
   * once; callers that arrive during a batch share the next one.
   */
  waitFor(position: bigint, timeoutMs = DEFAULT_WAIT_TIMEOUT_MS): Promise<void> {
    if (this.position() >= position) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve,
        reject,
        timer: setTimeout(
          () => this.settle(waiter, new Error(`Projections did not reach position ${position} within ${timeoutMs} ms (at ${this.position()}).`)),
          timeoutMs,
        ),
      };
      this.waiters.add(waiter);
      this.wakeup.nudge();
    });
  }

  nudge(): void {
    this.wakeup.nudge();
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
        await em.execute(
          `UPDATE ${this.schema}.projection_checkpoints SET position = 0, version = ?, updated_at = now() WHERE name = ?`,
          [projection.version, name],
        );
      }),
    );
    this.positions.set(name, 0n);
    const head = await this.options.store.headPosition();
    await this.drainTo(head > reached ? head : reached);
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
        read = await this.exclusive(() => this.runBatch());
        failures = 0;
      } catch (error) {
        failures += 1;
        this.logger.error({ err: error, failures }, 'Projection batch failed; it will be retried from the checkpoint.');
        await this.wakeup.sleep(Math.min(MAX_FAILURE_BACKOFF_MS, (this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS) * 2 ** failures));
        continue;
      }
      if (read === 0) {
        await this.wakeup.sleep(this.waiters.size > 0 ? WAITING_POLL_INTERVAL_MS : (this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS));
      }
    }
  }

  private async drainTo(head: bigint): Promise<void> {
    for (let idle = 0; this.position() < head; ) {
      const read = await this.exclusive(() => this.runBatch());
      idle = read === 0 ? idle + 1 : 0;
      if (idle >= MAX_IDLE_DRAIN_ROUNDS) throw new Error(`Projections are stuck at ${this.position()} below head ${head}.`);
      if (read === 0) await new Promise((resolve) => setTimeout(resolve, WAITING_POLL_INTERVAL_MS));
    }
  }

  /** One batch: read after the lowest checkpoint, apply it to every projection, advance checkpoints. */
  private async runBatch(): Promise<number> {
    const after = this.position();
    const events = await this.options.store.readAll({ after, limit: this.options.batchSize ?? DEFAULT_BATCH_SIZE });
    const last = events[events.length - 1];
    if (!last) {
      this.releaseWaiters();
      return 0;
    }
    let advanced: Map<string, bigint>;
    try {
      advanced = this.needsOrm(events)
        ? await this.options.orm.em.fork().transactional(async (em) => this.applyBatch(await ormTransaction(em, this.schema), after, events, last.globalPosition))
        : await this.inPlainTransaction((tx) => this.applyBatch(tx, after, events, last.globalPosition));
    } catch (error) {
      if (!(error instanceof StaleBatch)) throw error;
      await this.loadCheckpoints();
      return events.length;
    }
    for (const [name, position] of advanced) this.positions.set(name, position);
    this.releaseWaiters();
    return events.length;
  }

  /** True unless a pg pool is at hand and no projection without its own `rows` handles any event of the batch. */
  private needsOrm(events: RecordedEvent[]): boolean {
    if (!this.options.pool) return true;
    return this.options.projections.some((projection) => !projection.rows && events.some((event) => projection.canHandle.includes(event.type)));
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
          const results = (await client.query(['BEGIN', ...statements].join('; '))) as unknown as { rows: { name: string; position: string }[] }[];
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
  private async applyBatch(tx: BatchTransaction, after: bigint, events: RecordedEvent[], last: bigint): Promise<Map<string, bigint>> {
    const { projections } = this.options;
    const table = `${this.schema}.projection_checkpoints`;
    // Read models and their checkpoints are rebuilt from the store, so a batch need not wait for its
    // commit to reach disk: a crash loses rows and checkpoint together and the batch is applied again.
    // This takes one fsync off every command that waits for its read model.
    const rows = await tx.begin([
      'SET LOCAL synchronous_commit = off',
      `SELECT name, position FROM ${table} WHERE name IN (${projections.map((projection) => sqlText(projection.name)).join(', ')}) FOR UPDATE`,
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

  private releaseWaiters(): void {
    const reached = this.position();
    for (const waiter of this.waiters) if (waiter.position <= reached) this.settle(waiter);
  }

  private settle(waiter: Waiter, error?: Error): void {
    if (!this.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    if (error) waiter.reject(error);
    else waiter.resolve();
  }
}

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
    sql: { schema, query: async <Result>(text: string, values: unknown[]) => (await connection.query(text, values)).rows as Result[] },
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
  await rows.save(sql, { upserts, deletes });
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
