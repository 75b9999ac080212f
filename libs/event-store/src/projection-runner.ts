import type { EntityManager, EntityMetadata, EntitySchema } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
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
};

export type ProjectionRunnerOptions = {
  store: EventStore;
  orm: MikroORM;
  schema: string;
  projections: Projection<any>[];
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
      advanced = await this.options.orm.em.fork().transactional((em) => this.applyBatch(em, after, events, last.globalPosition));
    } catch (error) {
      if (!(error instanceof StaleBatch)) throw error;
      await this.loadCheckpoints();
      return events.length;
    }
    for (const [name, position] of advanced) this.positions.set(name, position);
    this.releaseWaiters();
    return events.length;
  }

  /**
   * Rows and checkpoints change in one transaction, so a crash leaves either both or neither. The
   * checkpoint rows are locked first: a second replica running the same projection waits here and
   * then skips what this one applied, instead of applying it twice.
   */
  private async applyBatch(em: EntityManager, after: bigint, events: RecordedEvent[], last: bigint): Promise<Map<string, bigint>> {
    const { projections } = this.options;
    // Read models and their checkpoints are rebuilt from the store, so a batch need not wait for its
    // commit to reach disk: a crash loses rows and checkpoint together and the batch is applied again.
    // This takes one fsync off every command that waits for its read model.
    await (em as unknown as { execute: (sql: string) => Promise<unknown> }).execute('SET LOCAL synchronous_commit = off');
    const rows = await (em as unknown as { execute: (sql: string, params: unknown[]) => Promise<{ name: string; position: string }[]> }).execute(
      `SELECT name, position FROM ${this.schema}.projection_checkpoints WHERE name IN (${projections.map(() => '?').join(', ')}) FOR UPDATE`,
      projections.map((projection) => projection.name),
    );
    const advanced = new Map<string, bigint>();
    for (const projection of projections) {
      const stored = BigInt(rows.find((row) => row.name === projection.name)?.position ?? 0);
      if (stored < after) throw new StaleBatch();
      if (stored >= last) {
        advanced.set(projection.name, stored);
        continue;
      }
      const pending = events.filter((event) => event.globalPosition > stored && projection.canHandle.includes(event.type));
      await applyProjection(em, projection, pending);
      await (em as unknown as { execute: (sql: string, params: unknown[]) => Promise<unknown> }).execute(
        `UPDATE ${this.schema}.projection_checkpoints SET position = ?, updated_at = now() WHERE name = ?`,
        [last.toString(), projection.name],
      );
      advanced.set(projection.name, last);
    }
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
