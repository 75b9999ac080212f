import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Pool, type PoolClient } from 'pg';
import { checkpointDdl } from './postgres-schema';
import type { Logger } from './logger';
import { type Projection, ProjectionRunner } from './projection-runner';
import { assertSchemaName, assertTableName } from './sql-names';
import type { EventStore, RecordedEvent } from './types';

// A rebuild that never takes a read model away (issue 24, decision 0033). The projection is folded
// into a table of the same shape in `<schema>_shadow` while the live table keeps serving and its
// runner keeps advancing; the two are compared; and only when asked the shadow replaces the live
// table in one transaction (two ALTER TABLE … SET SCHEMA), the replaced table kept in
// `<schema>_retired`.
//
// How no event is lost: the shadow never reads past the live projection's checkpoint (its store is
// bounded by it), so it always trails the live table. The swap locks the live checkpoint row — the
// row every live batch locks first — so the live projection cannot move; the shadow is caught up to
// exactly that position; the tables change places; the lock is released. The live runner then goes
// on from the same checkpoint, now over the rebuilt table, which holds exactly the events up to it.

export type ShadowProgress = { position: bigint; target: bigint; from: bigint };

export type ShadowRebuildOptions = {
  connectionString: string;
  /** The service's own event store (the live schema's events). */
  store: EventStore;
  /** The live schema: read model, checkpoints and events. */
  schema: string;
  projection: Projection<any>;
  logger: Logger;
  service?: string;
  batchSize?: number;
  /** Called as the shadow advances (every 100 ms at most), for a progress bar. */
  onProgress?: (progress: ShadowProgress) => void;
};

type Row = Record<string, unknown>;
export type RowDifference = { key: string; live: Row | null; rebuilt: Row | null; columns: string[] };
export type DifferenceKind = 'missing' | 'extra' | 'different';

/** Live table against rebuilt table, at one position of both. */
export type ShadowDiff = {
  table: string;
  livePosition: bigint;
  shadowPosition: bigint;
  liveRows: number;
  rebuiltRows: number;
  /** missing: rebuilt but not live; extra: live but not rebuilt; different: both, other values. */
  counts: Record<DifferenceKind, number>;
  examples: Record<DifferenceKind, RowDifference[]>;
  /** Rows touched by events the live table had applied and the shadow not yet: left out of the comparison. */
  inFlight: string[];
};

const EXAMPLES_PER_KIND = 5;
const POLL_MS = 100;
/** A swap waits this long for the live table's lock (a long reader), then gives up and changes nothing. */
const SWAP_LOCK_TIMEOUT = '5s';

export const shadowSchemaOf = (schema: string): string => assertSchemaName(`${schema}_shadow`);
export const retiredSchemaOf = (schema: string): string => assertSchemaName(`${schema}_retired`);

const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Top-level columns whose values differ between the live and the rebuilt row. Pure. */
export const differingColumns = (live: Row | null, rebuilt: Row | null): string[] => {
  if (!live || !rebuilt) return [];
  const names = [...new Set([...Object.keys(live), ...Object.keys(rebuilt)])].sort();
  return names.filter((name) => JSON.stringify(live[name]) !== JSON.stringify(rebuilt[name]));
};

/** The events the shadow may read: never one past the ceiling (the live position it must reach). */
const boundedStore = (store: EventStore, ceiling: () => bigint): EventStore => ({
  readStream: (streamId, options) => store.readStream(streamId, options),
  findInStream: (streamId, dataEquals) => store.findInStream(streamId, dataEquals),
  appendToStream: () => Promise.reject(new Error('A shadow rebuild never appends.')),
  appendToStreams: () => Promise.reject(new Error('A shadow rebuild never appends.')),
  appendToStreamsAtomically: () => Promise.reject(new Error('A shadow rebuild never appends.')),
  // A listing is not bounded by the ceiling, and a projection never lists: refused rather than unbounded.
  listEvents: () => Promise.reject(new Error('A shadow rebuild never lists stored events.')),
  readAll: async ({ after, limit }) => {
    const top = ceiling();
    if (after >= top) return [];
    return (await store.readAll({ after, limit })).filter((event) => event.globalPosition <= top);
  },
  headPosition: async () => {
    const head = await store.headPosition();
    return head < ceiling() ? head : ceiling();
  },
  // The caller owns the store.
  close: async () => undefined,
});

export type ShadowRebuild = {
  readonly table: string;
  readonly shadowSchema: string;
  readonly retiredSchema: string;
  /** Drops any earlier shadow of this projection and folds every event up to the live position into a new one. */
  build(): Promise<bigint>;
  /** True when a shadow of this projection exists (an earlier `build` not yet swapped). */
  exists(): Promise<boolean>;
  /** Brings the shadow up to the live position (no lock), then compares both tables at one snapshot. */
  compare(): Promise<ShadowDiff>;
  /** Locks the live checkpoint, catches the shadow up to it, and swaps the tables in that one transaction. */
  swap(): Promise<{ position: bigint }>;
  close(): Promise<void>;
};

export const createShadowRebuild = async (options: ShadowRebuildOptions): Promise<ShadowRebuild> => {
  const live = assertSchemaName(options.schema);
  const shadow = shadowSchemaOf(live);
  const retired = retiredSchemaOf(live);
  const { projection } = options;
  const table = projection.entity.meta.tableName ?? projection.entity.meta.collection;
  if (!table) throw new Error(`Projection ${projection.name} names no table.`);
  const pool = new Pool({ connectionString: options.connectionString, max: 3 });
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: options.connectionString,
    schema: shadow,
    entities: [projection.entity],
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: 3 },
  });
  // The derived tables a projection's own save keeps with its rows are rebuilt and swapped with them.
  const tables = [table, ...(projection.rows?.derivedTables ?? []).map(assertTableName)];
  const context: Context = { options, pool, orm, live, shadow, retired, table, tables };
  return {
    table,
    shadowSchema: shadow,
    retiredSchema: retired,
    build: async () => {
      // Refuses before creating anything when nothing is live (the service never ran here).
      const first = await liveCheckpoint(context, pool);
      await prepareShadow(context);
      // The live projection moves on during a long build: a second, short pass catches up with it.
      await catchUp(context, first);
      return catchUp(context, await liveCheckpoint(context, pool));
    },
    exists: () => shadowExists(context),
    compare: async () => {
      await requireShadow(context);
      await catchUp(context, await liveCheckpoint(context, pool));
      return compareAtSnapshot(context);
    },
    swap: async () => {
      await requireShadow(context);
      return swapTables(context);
    },
    close: async () => {
      await orm.close(true);
      await pool.end();
    },
  };
};

type Context = {
  options: ShadowRebuildOptions;
  pool: Pool;
  orm: MikroORM;
  live: string;
  shadow: string;
  retired: string;
  table: string;
  /** The projection's table first, then its derived tables. */
  tables: string[];
};

type Queryable = Pick<PoolClient, 'query'> | Pool;

const liveCheckpoint = async ({ live, options }: Context, client: Queryable, lock = false): Promise<bigint> => {
  const rows = (
    await client.query<{ position: string }>(
      `SELECT position FROM ${live}.projection_checkpoints WHERE name = $1${lock ? ' FOR UPDATE' : ''}`,
      [options.projection.name],
    )
  ).rows;
  if (!rows[0]) {
    throw new Error(
      `The ${live} schema has no checkpoint for ${options.projection.name}: its service has never run on this database, ` +
        'so nothing is live to compare with. Rebuild it in place with --destructive instead.',
    );
  }
  return BigInt(rows[0].position);
};

const shadowCheckpoint = async ({ shadow, options }: Context, client: Queryable): Promise<bigint> => {
  const { rows } = await client.query<{ position: string }>(`SELECT position FROM ${shadow}.projection_checkpoints WHERE name = $1`, [
    options.projection.name,
  ]);
  if (!rows[0]) throw new Error(`No shadow of ${options.projection.name} in ${shadow}: build one first with --shadow.`);
  return BigInt(rows[0].position);
};

const shadowExists = async ({ pool, shadow, table, options }: Context): Promise<boolean> => {
  const { rows } = await pool.query<{ present: string | null; checkpoints: string | null }>(
    'SELECT to_regclass($1) AS present, to_regclass($2) AS checkpoints',
    [`${shadow}.${ident(table)}`, `${shadow}.projection_checkpoints`],
  );
  if (!rows[0]?.present || !rows[0].checkpoints) return false;
  const checkpoint = await pool.query(`SELECT 1 FROM ${shadow}.projection_checkpoints WHERE name = $1`, [options.projection.name]);
  return checkpoint.rowCount === 1;
};

const requireShadow = async (context: Context): Promise<void> => {
  if (await shadowExists(context)) return;
  throw new Error(`No shadow of ${context.options.projection.name} in ${context.shadow}: build one first with --shadow.`);
};

/**
 * Empty tables shaped as the live ones (the projection's and its derived tables): same columns,
 * defaults, checks, keys and indexes under the same names (so later migrations that name an index
 * still find it after the swap); the shadow's checkpoint at zero.
 */
const prepareShadow = async ({ pool, live, shadow, tables, options }: Context): Promise<void> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // An empty search path makes pg_get_indexdef qualify the table, which the rewrite below relies on.
    await client.query('SET LOCAL search_path = pg_catalog');
    await client.query(checkpointDdl(shadow));
    await client.query(`DELETE FROM ${shadow}.projection_checkpoints WHERE name = $1`, [options.projection.name]);
    for (const table of tables) await copyTableShape(client, live, shadow, table);
    await client.query(`INSERT INTO ${shadow}.projection_checkpoints (name, version, position) VALUES ($1, $2, 0)`, [
      options.projection.name,
      options.projection.version,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await rollbackAfterFailure(client);
    throw error;
  } finally {
    client.release();
  }
};

/** Drops the shadow's copy of one live table and creates it again, empty, with the live table's shape. */
const copyTableShape = async (client: PoolClient, live: string, shadow: string, table: string): Promise<void> => {
  await client.query(`DROP TABLE IF EXISTS ${shadow}.${ident(table)}`);
  const source = `${live}.${ident(table)}`;
  const target = `${shadow}.${ident(table)}`;
  await client.query(
    `CREATE TABLE ${target} (LIKE ${source} INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING IDENTITY ` +
      'INCLUDING STORAGE INCLUDING COMMENTS)',
  );
  const constraints = await client.query<{ name: string; definition: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'c', 'x') ORDER BY contype = 'p' DESC, conname`,
    [source],
  );
  for (const { name, definition } of constraints.rows) {
    await client.query(`ALTER TABLE ${target} ADD CONSTRAINT ${ident(name)} ${definition}`);
  }
  const indexes = await client.query<{ definition: string }>(
    `SELECT pg_get_indexdef(i.indexrelid) AS definition FROM pg_index i
     WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [source],
  );
  // pg_get_indexdef names the table schema-qualified; the index itself lands in the table's schema.
  for (const { definition } of indexes.rows) await client.query(onShadowTable(definition, live, table, target));
};

/**
 * Runs a projection runner over the shadow schema, its reads bounded at `ceiling`, until every
 * event up to it is applied; then records the ceiling itself as the shadow's position (positions
 * have gaps: the last event at or below it may sit lower). Returns that position.
 */
const catchUp = async (context: Context, ceiling: bigint): Promise<bigint> => {
  const { options, shadow, pool } = context;
  const name = options.projection.name;
  const stored = await shadowCheckpoint(context, pool);
  if (stored > ceiling) {
    throw new Error(
      `The live ${name} stands at ${ceiling}, behind its shadow at ${stored}: ` + 'it was rebuilt meanwhile. Build the shadow again.',
    );
  }
  await runUntilNothingLeft(context, ceiling, stored);
  await pool.query(`UPDATE ${shadow}.projection_checkpoints SET position = $2, updated_at = now() WHERE name = $1`, [
    name,
    ceiling.toString(),
  ]);
  options.onProgress?.({ position: ceiling, target: ceiling, from: stored });
  return ceiling;
};

/**
 * One runner over the shadow, stopped once its position leaves no event at or below the ceiling.
 * Stopping waits for a batch in flight, which can only have read events the check found absent.
 */
const runUntilNothingLeft = async ({ options, orm, shadow }: Context, ceiling: bigint, from: bigint): Promise<void> => {
  const runner = new ProjectionRunner({
    store: boundedStore(options.store, () => ceiling),
    orm,
    schema: shadow,
    projections: [options.projection],
    logger: options.logger,
    service: `${options.service ?? options.schema} (shadow)`,
    batchSize: options.batchSize ?? 1_000,
    pollIntervalMs: 20,
  });
  await runner.start();
  try {
    for (;;) {
      const status = runner.status().projections[0]!;
      if (status.halted) {
        const event = status.lastError?.event;
        const where = event ? ` on ${event.type} of ${event.streamId} (position ${event.position})` : '';
        throw new Error(
          `The shadow of ${options.projection.name} halted${where}: ${status.lastError?.message ?? 'unknown error'}. ` +
            'The live table is untouched.',
        );
      }
      const position = BigInt(status.position);
      options.onProgress?.({ position, target: ceiling, from });
      if (!(await eventsBetween(options.store, position, ceiling, 1))) return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    await runner.stop();
  }
};

/** The events after `after` and at or below `ceiling`, read up to `limit` at a time (at most `max` in all). */
const eventsBetween = async (store: EventStore, after: bigint, ceiling: bigint, max: number): Promise<RecordedEvent[] | undefined> => {
  const found: RecordedEvent[] = [];
  for (let cursor = after; cursor < ceiling && found.length < max;) {
    const events = await store.readAll({ after: cursor, limit: Math.min(1_000, max - found.length) });
    const below = events.filter((event) => event.globalPosition <= ceiling);
    found.push(...below);
    if (below.length < events.length || events.length === 0) break;
    cursor = events[events.length - 1]!.globalPosition;
  }
  return found.length > 0 ? found : undefined;
};

const primaryKeyOf = async ({ pool, live, table }: Context): Promise<string> => {
  const { rows } = await pool.query<{ column: string }>(
    `SELECT a.attname AS column FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
     WHERE i.indrelid = $1::regclass AND i.indisprimary`,
    [`${live}.${ident(table)}`],
  );
  if (!rows[0]) throw new Error(`${live}.${table} has no primary key to compare rows by.`);
  return rows[0].column;
};

/** Keys of the rows the events in (from, to] touch: the projection's own keyOf. */
const keysTouched = async (options: ShadowRebuildOptions, from: bigint, to: bigint): Promise<string[]> => {
  if (to <= from) return [];
  const events = (await eventsBetween(options.store, from, to, Number.MAX_SAFE_INTEGER)) ?? [];
  const handled = events.filter((event) => options.projection.canHandle.includes(event.type));
  return [...new Set(handled.map((event) => options.projection.keyOf(event)))];
};

type DiffRow = { kind: DifferenceKind; key: string; live: Row | null; rebuilt: Row | null; total: string };

/**
 * Both tables and both checkpoints read in one REPEATABLE READ snapshot, so the comparison is of one
 * moment. The live projection may have moved past the shadow meanwhile: the rows the events in
 * between touch are left out (and named) rather than reported as differences. No lock is taken.
 */
const compareAtSnapshot = async (context: Context): Promise<ShadowDiff> => {
  const { pool, live, shadow, table, options } = context;
  const key = ident(await primaryKeyOf(context));
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const livePosition = await liveCheckpoint(context, client);
    const shadowPosition = await shadowCheckpoint(context, client);
    const inFlight = await keysTouched(options, shadowPosition, livePosition);
    const counts = (
      await client.query<{ live: string; rebuilt: string }>(
        `SELECT (SELECT count(*) FROM ${live}.${ident(table)}) AS live, (SELECT count(*) FROM ${shadow}.${ident(table)}) AS rebuilt`,
      )
    ).rows[0]!;
    const { rows } = await client.query<DiffRow>(
      `WITH l AS (SELECT t.${key}::text AS k, to_jsonb(t) AS r FROM ${live}.${ident(table)} t),
            s AS (SELECT t.${key}::text AS k, to_jsonb(t) AS r FROM ${shadow}.${ident(table)} t),
            d AS (SELECT coalesce(l.k, s.k) AS key, l.r AS live, s.r AS rebuilt FROM l FULL JOIN s ON l.k = s.k
                  WHERE l.r IS DISTINCT FROM s.r AND NOT coalesce(l.k, s.k) = ANY($1::text[])),
            c AS (SELECT CASE WHEN live IS NULL THEN 'missing' WHEN rebuilt IS NULL THEN 'extra' ELSE 'different' END AS kind,
                         key, live, rebuilt FROM d),
            n AS (SELECT *, count(*) OVER (PARTITION BY kind) AS total, row_number() OVER (PARTITION BY kind ORDER BY key) AS rank FROM c)
       SELECT kind, key, live, rebuilt, total FROM n WHERE rank <= $2 ORDER BY kind, key`,
      [inFlight, EXAMPLES_PER_KIND],
    );
    await client.query('COMMIT');
    const frame = { table, livePosition, shadowPosition, liveRows: Number(counts.live), rebuiltRows: Number(counts.rebuilt), inFlight };
    return toDiff(frame, rows);
  } catch (error) {
    await rollbackAfterFailure(client);
    throw error;
  } finally {
    client.release();
  }
};

const toDiff = (frame: Omit<ShadowDiff, 'counts' | 'examples'>, rows: DiffRow[]): ShadowDiff => {
  const kinds: DifferenceKind[] = ['missing', 'extra', 'different'];
  const of = (kind: DifferenceKind) => rows.filter((row) => row.kind === kind);
  const example = ({ key, live, rebuilt }: DiffRow): RowDifference => ({ key, live, rebuilt, columns: differingColumns(live, rebuilt) });
  return {
    ...frame,
    counts: Object.fromEntries(kinds.map((kind) => [kind, Number(of(kind)[0]?.total ?? 0)])) as Record<DifferenceKind, number>,
    examples: Object.fromEntries(kinds.map((kind) => [kind, of(kind).map(example)])) as Record<DifferenceKind, RowDifference[]>,
  };
};

/**
 * The swap, in one transaction: lock the live checkpoint row (every live batch of the service waits
 * here meanwhile), catch the shadow up to exactly that position, move the live table to the
 * retired schema and the shadow into its place, and record the projection's version. Readers wait
 * for the table lock at most a moment and then read the rebuilt table; none sees it missing.
 */
const swapTables = async (context: Context): Promise<{ position: bigint }> => {
  const { pool, live, shadow, retired, tables, options } = context;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '${SWAP_LOCK_TIMEOUT}'`);
    const position = await liveCheckpoint(context, client, true);
    await catchUp(context, position);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${retired}`);
    for (const table of tables) {
      await client.query(`DROP TABLE IF EXISTS ${retired}.${ident(table)}`);
      await client.query(`ALTER TABLE ${live}.${ident(table)} SET SCHEMA ${retired}`);
      await client.query(`ALTER TABLE ${shadow}.${ident(table)} SET SCHEMA ${live}`);
    }
    await client.query(`UPDATE ${live}.projection_checkpoints SET version = $2, halted_at = NULL, updated_at = now() WHERE name = $1`, [
      options.projection.name,
      options.projection.version,
    ]);
    await client.query(`DELETE FROM ${shadow}.projection_checkpoints WHERE name = $1`, [options.projection.name]);
    await client.query('COMMIT');
    return { position };
  } catch (error) {
    await rollbackAfterFailure(client);
    throw error;
  } finally {
    client.release();
  }
};

/** An index definition of the live table (` ON [ONLY ]live.table ` or with the table quoted) moved onto the shadow table. */
const onShadowTable = (definition: string, live: string, table: string, target: string): string => {
  for (const only of ['', 'ONLY ']) {
    for (const quote of ['', '"']) {
      const on = ` ON ${only}${live}.${quote}${table}${quote} `;
      if (definition.includes(on)) return definition.replace(on, ` ON ${only}${target} `);
    }
  }
  return definition;
};

/**
 * The failure that got here is rethrown by the caller; a ROLLBACK that fails too (the connection is
 * gone) leaves nothing to undo, since PostgreSQL drops an open transaction with its session.
 */
const rollbackAfterFailure = async (client: { query: (text: string) => Promise<unknown> }): Promise<void> => {
  await client.query('ROLLBACK').catch(() => undefined);
};
