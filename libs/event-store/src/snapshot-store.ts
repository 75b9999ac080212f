import type { Pool } from 'pg';
import { isConnectionError, postgresUnreachable } from './infra-errors';
import { consoleLogger, type Logger } from './logger';
import { ensureEventStoreSchema } from './postgres-schema';
import { assertSchemaName } from './sql-names';
import { wholeNumberSetting } from './whole-number-setting';

/**
 * Snapshots of a stream's state for the command path (DESIGN.md §3, docs/decisions/0018). A
 * snapshot is a cache: the state the decider had folded at `version`, kept so a command reads only
 * the events after it. It is never the truth: deleting every row (`DELETE FROM <schema>.snapshots`)
 * only makes the next command of each stream read its whole stream again and take a new one.
 *
 * `deciderVersion` names the shape of the state and the rules that folded it. A snapshot written
 * under another decider version is ignored (and overwritten by the next one taken), so changing
 * evolve or the state's shape only needs a new version string, never a migration of snapshots.
 */
export type Snapshot = { streamId: string; version: number; deciderVersion: string; state: unknown; takenAt: Date };

export interface SnapshotStore {
  /** The stream's snapshot taken under deciderVersion, or null (none, or another decider's). */
  load(streamId: string, deciderVersion: string): Promise<Snapshot | null>;
  /** Keeps the newest snapshot per stream: an older version never replaces a newer one of the same decider. */
  save(snapshot: Omit<Snapshot, 'takenAt'>): Promise<void>;
  /** Drops one stream's snapshot, or every one: they rebuild on the next commands. */
  clear(streamId?: string): Promise<void>;
}

/** How a decider opts in: its state as JSON and back, under a version that changes with its rules. */
export type SnapshotCodec<State> = {
  deciderVersion: string;
  serialize: (state: State) => unknown;
  deserialize: (json: unknown) => State;
};

/** Events appended since the last snapshot before a command takes a new one (SNAPSHOT_EVERY, 0 = never). */
export const DEFAULT_SNAPSHOT_EVERY = 500;

/** SNAPSHOT_EVERY as a service's config.ts parses it. */
export const snapshotEveryFrom = (env: NodeJS.ProcessEnv): number =>
  wholeNumberSetting('SNAPSHOT_EVERY', env['SNAPSHOT_EVERY'], {
    fallback: DEFAULT_SNAPSHOT_EVERY,
    min: 0,
    means: 'a whole number of events (0 turns snapshots off)',
  });

/** True when the stream has gained `every` events since the snapshot it was loaded from (or since its start). */
export const snapshotDue = (every: number, snapshotVersion: number, version: number): boolean =>
  every > 0 && version - snapshotVersion >= every;

type SnapshotRow = { stream_id: string; version: number; decider_version: string; state: unknown; taken_at: Date };

/** Snapshots in `<schema>.snapshots` (created with the event store's tables, postgres-schema.ts). */
export const createPostgresSnapshotStore = (options: {
  pool: Pool;
  connectionString: string;
  schema: string;
  ensureSchema?: boolean;
}): SnapshotStore => {
  const schema = assertSchemaName(options.schema);
  const table = `${schema}.snapshots`;
  let ready: Promise<void> | undefined;
  const ensureReady = (): Promise<void> => {
    if (options.ensureSchema === false) return Promise.resolve();
    ready ??= ensureEventStoreSchema(options.connectionString, schema).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  const query = async <Row extends object>(text: string, values: unknown[], name?: string): Promise<Row[]> => {
    await ensureReady();
    try {
      return (await options.pool.query(name ? { name, text, values } : { text, values })).rows as Row[];
    } catch (error) {
      throw isConnectionError(error) ? postgresUnreachable(options.connectionString, error) : error;
    }
  };
  return {
    async load(streamId, deciderVersion) {
      const [row] = await query<SnapshotRow>(
        `SELECT stream_id, version, decider_version, state, taken_at FROM ${table} WHERE stream_id = $1 AND decider_version = $2`,
        [streamId, deciderVersion],
        `corridor_snapshot_load_${schema}`,
      );
      return row
        ? { streamId: row.stream_id, version: row.version, deciderVersion: row.decider_version, state: row.state, takenAt: row.taken_at }
        : null;
    },
    async save({ streamId, version, deciderVersion, state }) {
      await query(
        `INSERT INTO ${table} (stream_id, version, decider_version, state, taken_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (stream_id) DO UPDATE
         SET version = excluded.version, decider_version = excluded.decider_version, state = excluded.state, taken_at = excluded.taken_at
         WHERE ${table}.version < excluded.version OR ${table}.decider_version <> excluded.decider_version`,
        [streamId, version, deciderVersion, JSON.stringify(state)],
        `corridor_snapshot_save_${schema}`,
      );
    },
    async clear(streamId) {
      if (streamId === undefined) await query(`DELETE FROM ${table}`, []);
      else await query(`DELETE FROM ${table} WHERE stream_id = $1`, [streamId]);
    },
  };
};

/**
 * Serializes and saves a snapshot without ever failing the command that took it: a snapshot is only
 * a cache, so a failed serialization or write is logged (with the stream and version) and the next due command tries again.
 */
export const saveSnapshotQuietly = async (
  snapshots: SnapshotStore,
  snapshot: Omit<Snapshot, 'takenAt' | 'state'> & { state: () => unknown },
  logger: Logger | undefined,
): Promise<boolean> => {
  try {
    await snapshots.save({ ...snapshot, state: snapshot.state() });
    return true;
  } catch (error) {
    (logger ?? consoleLogger('snapshots', 'warn')).warn(
      { err: error, streamId: snapshot.streamId, version: snapshot.version, deciderVersion: snapshot.deciderVersion },
      `Snapshot of ${snapshot.streamId} at version ${snapshot.version} was not saved; commands keep reading from the previous one (or ` +
        `the stream).`,
    );
    return false;
  }
};
