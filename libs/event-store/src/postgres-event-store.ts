import { Pool, type PoolClient } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { advisoryKey, assertSchemaName } from './sql-names';
import { isConnectionError, postgresUnreachable } from './infra-errors';
import { ensureEventStoreSchema } from './postgres-schema';
import {
  type AppendMetadata,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
  type Upcasters,
  WrongExpectedVersionError,
  toEventMetadata,
  upcast,
} from './types';

export type PostgresEventStoreOptions = {
  connectionString: string;
  schema: string;
  upcasters?: Upcasters;
  poolSize?: number;
  /** Create the tables on first use (default true). */
  ensureSchema?: boolean;
};

type EventRow = {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
};

const UNIQUE_VIOLATION = '23505';

/**
 * The transaction id below which every transaction that could still add events to this store has
 * finished: the oldest transaction the statement's snapshot saw running (its xip list), or the
 * snapshot's xmax when none ran. Transactions that belong to backends of other databases are left
 * out: an append to this store always runs in this database, and without this a long write
 * transaction anywhere in the cluster (another service's database, a test run) would stall every
 * reader here. Leaving out a transaction that cannot append is always safe; if pg_stat_activity
 * hides other sessions' xids from this role, nothing is left out and the horizon is the plain xmin.
 */
const SAFE_HORIZON = `(
  SELECT coalesce(
    (
      SELECT min(running.xid) FROM pg_snapshot_xip(snap.current) AS running(xid)
      WHERE NOT EXISTS (
        SELECT 1 FROM pg_stat_activity AS other
        WHERE other.datname IS DISTINCT FROM current_database()
          AND other.backend_xid IS NOT NULL
          AND other.backend_xid::text::bigint = running.xid::text::bigint % 4294967296
      )
    ),
    pg_snapshot_xmax(snap.current)
  )
  FROM (SELECT pg_current_snapshot() AS current) AS snap
)`;
const COLUMNS = 'global_position, event_id, stream_id, stream_position, type, data, metadata';
/** An 'any' append only loses a race to a concurrent writer of the same stream; a few tries settle it. */
const ANY_VERSION_ATTEMPTS = 5;
const MAX_READ_LIMIT = 10_000;

const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  streamId: row.stream_id,
  streamPosition: row.stream_position,
  globalPosition: BigInt(row.global_position),
  type: row.type,
  data: row.data,
  metadata: row.metadata,
});

export const createPostgresEventStore = (options: PostgresEventStoreOptions): EventStore => {
  const schema = assertSchemaName(options.schema);
  const table = `${schema}.events`;
  // Appends take this lock only around their INSERT (not until commit); see insertEvents.
  const appendLockKey = advisoryKey(`corridor.append:${schema}`);
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 10_000,
  });
  // An idle client that loses its server must not crash the process; the next checkout reconnects.
  pool.on('error', () => undefined);
  let ready: Promise<void> | undefined;
  let closed = false;

  const ensureReady = (): Promise<void> => {
    if (options.ensureSchema === false) return Promise.resolve();
    ready ??= ensureEventStoreSchema(options.connectionString, schema).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  const query = async <Row extends object>(text: string, values: unknown[]): Promise<Row[]> => {
    await ensureReady();
    try {
      return (await pool.query(text, values)).rows as Row[];
    } catch (error) {
      throw isConnectionError(error) ? postgresUnreachable(options.connectionString, error) : error;
    }
  };

  const checkout = async (): Promise<PoolClient> => {
    await ensureReady();
    try {
      return await pool.connect();
    } catch (error) {
      throw isConnectionError(error) ? postgresUnreachable(options.connectionString, error) : error;
    }
  };

  const upcastAll = (events: RecordedEvent[]) => events.map((event) => upcast(event, options.upcasters));

  const versionSql = `SELECT coalesce(max(stream_position), 0)::int AS version FROM ${table} WHERE stream_id = $1`;
  const versionInTransaction = async (client: PoolClient, streamId: string): Promise<number> =>
    ((await client.query(versionSql, [streamId])).rows[0] as { version: number }).version;
  const streamVersion = async (streamId: string): Promise<number> =>
    (await query<{ version: number }>(versionSql, [streamId]))[0]?.version ?? 0;

  /**
   * Late-commit safety rests on this critical section. readAll only returns rows whose writing
   * transaction is older than every transaction still running (the xid8 snapshot xmin). That is
   * enough only if global positions are handed out in transaction-id order; otherwise a
   * transaction with a lower id but a higher position could commit first and be released while
   * a newer transaction with a lower position is still open. Assigning the transaction id (the
   * first write of the transaction) and the positions inside one session-level lock gives that
   * order. The lock is released before COMMIT, so concurrent appends still commit in parallel.
   */
  const insertEvents = async (client: PoolClient, streamId: string, from: number, events: NewEvent[], metadata: AppendMetadata) => {
    const occurredAt = metadata.occurredAt ?? new Date().toISOString();
    const params = events.map((event, index) => [
      uuidv7(),
      from + index + 1,
      event.type,
      JSON.stringify(event.data),
      JSON.stringify(toEventMetadata(metadata, event, occurredAt)),
    ]);
    await client.query('SELECT pg_advisory_lock($1)', [appendLockKey]);
    try {
      const result = await client.query(
        `INSERT INTO ${table} (event_id, stream_id, stream_position, type, data, metadata)
         SELECT e.event_id, $1, e.stream_position, e.type, e.data, e.metadata
         FROM unnest($2::uuid[], $3::int[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY
           AS e(event_id, stream_position, type, data, metadata, ordinal)
         ORDER BY e.ordinal
         RETURNING ${COLUMNS}`,
        [streamId, ...[0, 1, 2, 3, 4].map((column) => params.map((row) => row[column]))],
      );
      return (result.rows as EventRow[]).map(toRecorded).sort((a, b) => a.streamPosition - b.streamPosition);
    } finally {
      // After a failed INSERT the transaction is aborted and cannot run the unlock; the caller
      // rolls back and then unlocks (session locks survive a rollback).
      await client.query('SELECT pg_advisory_unlock($1)', [appendLockKey]).catch(() => undefined);
    }
  };

  const appendOnce = async (
    streamId: string,
    events: NewEvent[],
    expectedVersion: ExpectedVersion,
    metadata: AppendMetadata,
  ): Promise<{ version: number; events: RecordedEvent[] }> => {
    const client = await checkout();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const current = await versionInTransaction(client, streamId);
      if (expectedVersion !== 'any' && current !== expectedVersion) {
        throw new WrongExpectedVersionError(streamId, expectedVersion, current);
      }
      const recorded = await insertEvents(client, streamId, current, events, metadata);
      await client.query('COMMIT');
      return { version: current + events.length, events: upcastAll(recorded) };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      await client.query('SELECT pg_advisory_unlock_all()').catch((unlockError: Error) => (broken = unlockError));
      const { code, constraint } = error as { code?: string; constraint?: string };
      if (code === UNIQUE_VIOLATION && constraint === 'events_stream_position_unique') {
        throw new WrongExpectedVersionError(streamId, expectedVersion, await streamVersion(streamId).catch(() => undefined));
      }
      throw isConnectionError(error) ? postgresUnreachable(options.connectionString, error) : error;
    } finally {
      // A client whose rollback or unlock failed may still hold the lock: destroy its session.
      client.release(broken);
    }
  };

  return {
    async readStream(streamId, readOptions) {
      const from = Math.max(1, readOptions?.fromPosition ?? 1);
      const rows = await query<EventRow>(
        `SELECT ${COLUMNS} FROM ${table} WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position`,
        [streamId, from],
      );
      const events = upcastAll(rows.map(toRecorded));
      const last = events[events.length - 1];
      const version = last ? last.streamPosition : from === 1 ? 0 : await streamVersion(streamId);
      return { events, version };
    },

    async appendToStream(streamId, events, { expectedVersion, metadata }) {
      if (closed) throw new Error('The event store is closed.');
      if (events.length === 0) {
        const version = await streamVersion(streamId);
        if (expectedVersion !== 'any' && version !== expectedVersion) throw new WrongExpectedVersionError(streamId, expectedVersion, version);
        return { version, events: [] };
      }
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await appendOnce(streamId, events, expectedVersion, metadata);
        } catch (error) {
          const retry = expectedVersion === 'any' && error instanceof WrongExpectedVersionError && attempt < ANY_VERSION_ATTEMPTS;
          if (!retry) throw error;
        }
      }
    },

    async readAll({ after, limit }) {
      // A row is final once its transaction is older than every transaction that might still
      // append; newer rows wait for a later call (see insertEvents for why this cannot skip one).
      const rows = await query<EventRow>(
        `SELECT ${COLUMNS} FROM ${table}
         WHERE global_position > $1 AND transaction_id < ${SAFE_HORIZON}
         ORDER BY global_position LIMIT $2`,
        [after.toString(), Math.min(Math.max(1, limit), MAX_READ_LIMIT)],
      );
      return upcastAll(rows.map(toRecorded));
    },

    async headPosition() {
      const rows = await query<{ head: string }>(
        `SELECT coalesce(max(global_position), 0)::text AS head FROM ${table}
         WHERE transaction_id < ${SAFE_HORIZON}`,
        [],
      );
      return BigInt(rows[0]?.head ?? '0');
    },

    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
};
