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
  type StoredEventsFilter,
  type StoredEventsKey,
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
  /**
   * The process's one pool (see EventSourcing): the store then shares it and leaves closing it to
   * its owner. Without it the store opens a pool of `poolSize` of its own.
   */
  pool?: Pool;
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
/** Raised by append_events when the stream is not at the expected version. */
const WRONG_VERSION = 'CR409';

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
/** A data field findInStream may name: it goes into the SQL text as a literal. */
const DATA_FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The WHERE clause of a stored-events listing and its values: the platform always, then each
 * filter given. occurredAt is compared as the stored ISO 8601 UTC string, in the collation of the events_platform_occurred index.
 */
export const storedEventsWhere = (filter: StoredEventsFilter): { where: string; values: unknown[] } => {
  const values: unknown[] = [filter.platformId];
  const parts = [`metadata->>'platformId' = $1`];
  const add = (sql: (parameter: string) => string, value: unknown): void => {
    values.push(value);
    parts.push(sql(`$${values.length}`));
  };
  if (filter.resourceId !== undefined) add((p) => `stream_id = ${p}`, filter.resourceId);
  if (filter.correlationId !== undefined) add((p) => `metadata->>'correlationId' = ${p}`, filter.correlationId);
  if (filter.type !== undefined) add((p) => `type = ${p}`, filter.type);
  if (filter.occurredFrom !== undefined) add((p) => `metadata->>'occurredAt' COLLATE "C" >= ${p}`, filter.occurredFrom);
  if (filter.occurredTo !== undefined) add((p) => `metadata->>'occurredAt' COLLATE "C" <= ${p}`, filter.occurredTo);
  if (filter.mentioning !== undefined) add((p) => `(stream_id = ${p} OR strpos(data::text, '"' || ${p} || '"') > 0)`, filter.mentioning);
  return { where: parts.join(' AND '), values };
};

const toRecorded = (row: EventRow): RecordedEvent => ({
  eventId: row.event_id,
  streamId: row.stream_id,
  streamPosition: row.stream_position,
  globalPosition: BigInt(row.global_position),
  type: row.type,
  data: row.data,
  metadata: row.metadata,
});

/** What the methods of one store share: its names, its pool, and whether its schema is ready and it is closed. */
type PostgresStore = {
  options: PostgresEventStoreOptions;
  schema: string;
  table: string;
  /** Appends take this lock only around their INSERT (not until commit); see appendOnce. */
  appendLockKey: number;
  pool: Pool;
  ownPool: boolean;
  ready: Promise<void> | undefined;
  closed: boolean;
};

type Appended = { version: number; events: RecordedEvent[] };
type StreamAppend = { streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion };

/** The port over module-level functions that share one PostgresStore; each method is a plain property, so a wrapper may spread it. */
export const createPostgresEventStore = (options: PostgresEventStoreOptions): EventStore => {
  const pg = openPostgresStore(options);
  return {
    readStream: (streamId, readOptions) => readStream(pg, streamId, readOptions),
    appendToStream: (streamId, events, { expectedVersion, metadata }) => appendToStream(pg, streamId, events, expectedVersion, metadata),
    appendToStreams: (appends, { metadata }) => appendToStreams(pg, appends, metadata),
    appendToStreamsAtomically: (appends, { metadata }) => appendToStreamsAtomically(pg, appends, metadata),
    findInStream: (streamId, dataEquals) => findInStream(pg, streamId, dataEquals),
    listEvents: (filter, page) => listEvents(pg, filter, page),
    readAll: (range) => readAll(pg, range),
    headPosition: () => headPosition(pg),
    close: () => close(pg),
  };
};

const openPostgresStore = (options: PostgresEventStoreOptions): PostgresStore => {
  const schema = assertSchemaName(options.schema);
  const ownPool = !options.pool;
  const pool =
    options.pool ??
    new Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 10_000,
    });
  // An idle client that loses its server must not crash the process; the next checkout reconnects
  // and that checkout's caller sees (and reports) the error.
  if (ownPool) pool.on('error', () => undefined);
  const appendLockKey = advisoryKey(`corridor.append:${schema}`);
  return { options, schema, table: `${schema}.events`, appendLockKey, pool, ownPool, ready: undefined, closed: false };
};

const ensureReady = (pg: PostgresStore): Promise<void> => {
  if (pg.options.ensureSchema === false) return Promise.resolve();
  pg.ready ??= ensureEventStoreSchema(pg.options.connectionString, pg.schema).catch((error: unknown) => {
    pg.ready = undefined;
    throw error;
  });
  return pg.ready;
};

/** `name` prepares the statement once per connection: planning the horizon subquery costs more than running it. */
const query = async <Row extends object>(pg: PostgresStore, text: string, values: unknown[], name?: string): Promise<Row[]> => {
  await ensureReady(pg);
  try {
    return (await pg.pool.query(name ? { name, text, values } : { text, values })).rows as Row[];
  } catch (error) {
    throw isConnectionError(error) ? postgresUnreachable(pg.options.connectionString, error) : error;
  }
};

const checkout = async (pg: PostgresStore): Promise<PoolClient> => {
  await ensureReady(pg);
  try {
    return await pg.pool.connect();
  } catch (error) {
    throw isConnectionError(error) ? postgresUnreachable(pg.options.connectionString, error) : error;
  }
};

const upcastAll = (pg: PostgresStore, events: RecordedEvent[]): RecordedEvent[] =>
  events.map((event) => upcast(event, pg.options.upcasters));

const streamVersion = async (pg: PostgresStore, streamId: string): Promise<number> =>
  (
    await query<{ version: number }>(pg, `SELECT coalesce(max(stream_position), 0)::int AS version FROM ${pg.table} WHERE stream_id = $1`, [
      streamId,
    ])
  )[0]?.version ?? 0;

/**
 * One round trip: `append_events` (postgres-schema.ts) checks the expected version, then takes
 * the store's append lock only around its INSERT and releases it before the statement's
 * implicit COMMIT. Late-commit safety rests on that critical section: readAll only returns rows
 * whose writing transaction is older than every transaction still running, which is enough only
 * if global positions are handed out in transaction-id order. The transaction id (assigned by the
 * first write) and the positions are both assigned under the lock, so they are; and since the
 * lock is held for microseconds on the server, not across client round trips, appends still
 * commit (and fsync) in parallel.
 */
const appendOnce = async (
  pg: PostgresStore,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: AppendMetadata,
): Promise<Appended> => {
  const occurredAt = metadata.occurredAt ?? new Date().toISOString();
  const client = await checkout(pg);
  let broken: Error | undefined;
  try {
    const result = await client.query(`SELECT ${COLUMNS} FROM ${pg.schema}.append_events($1, $2, $3, $4, $5, $6, $7)`, [
      streamId,
      expectedVersion === 'any' ? -1 : expectedVersion,
      pg.appendLockKey,
      events.map(() => uuidv7()),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify(event.data)),
      events.map((event) => JSON.stringify(toEventMetadata(metadata, event, occurredAt))),
    ]);
    const recorded = (result.rows as EventRow[]).map(toRecorded).sort((a, b) => a.streamPosition - b.streamPosition);
    const last = recorded[recorded.length - 1];
    return { version: last ? last.streamPosition : 0, events: upcastAll(pg, recorded) };
  } catch (error) {
    // A statement that failed after taking the session-level lock leaves it held: release it here.
    await client.query('SELECT pg_advisory_unlock_all()').catch((unlockError: Error) => (broken = unlockError));
    const { code, constraint, detail } = error as { code?: string; constraint?: string; detail?: string };
    if (code === WRONG_VERSION) throw new WrongExpectedVersionError(streamId, expectedVersion, Number(detail));
    if (code === UNIQUE_VIOLATION && constraint === 'events_stream_position_unique') {
      // A failed read of the actual version is dropped on purpose: the version only enriches the
      // message, and the conflict itself is thrown either way (the caller reports it).
      throw new WrongExpectedVersionError(streamId, expectedVersion, await streamVersion(pg, streamId).catch(() => undefined));
    }
    throw isConnectionError(error) ? postgresUnreachable(pg.options.connectionString, error) : error;
  } finally {
    // A client whose unlock failed may still hold the lock: destroy its session.
    client.release(broken);
  }
};

/**
 * Several streams in one statement, so one commit (and one fsync) serves them all; the lock
 * discipline is appendOnce's. All or nothing: a stream at another version fails the statement,
 * and the caller falls back to one append per stream to learn which.
 */
const appendManyOnce = async (pg: PostgresStore, appends: StreamAppend[], metadata: AppendMetadata): Promise<Appended[]> => {
  const occurredAt = metadata.occurredAt ?? new Date().toISOString();
  const flat = appends.flatMap(({ events }, index) => events.map((event, offset) => ({ event, index: index + 1, offset: offset + 1 })));
  const client = await checkout(pg);
  let broken: Error | undefined;
  try {
    const result = await client.query(`SELECT ${COLUMNS} FROM ${pg.schema}.append_events_to_streams($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
      appends.map(({ streamId }) => streamId),
      appends.map(({ expectedVersion }) => (expectedVersion === 'any' ? -1 : expectedVersion)),
      pg.appendLockKey,
      flat.map(({ index }) => index),
      flat.map(({ offset }) => offset),
      flat.map(() => uuidv7()),
      flat.map(({ event }) => event.type),
      flat.map(({ event }) => JSON.stringify(event.data)),
      flat.map(({ event }) => JSON.stringify(toEventMetadata(metadata, event, occurredAt))),
    ]);
    const recorded = upcastAll(pg, (result.rows as EventRow[]).map(toRecorded));
    return appends.map(({ streamId, expectedVersion }) => {
      const own = recorded.filter((event) => event.streamId === streamId).sort((a, b) => a.streamPosition - b.streamPosition);
      // A stream given no events was only checked: it is at the version it was expected at.
      return { version: own[own.length - 1]?.streamPosition ?? (expectedVersion === 'any' ? 0 : expectedVersion), events: own };
    });
  } catch (error) {
    await client.query('SELECT pg_advisory_unlock_all()').catch((unlockError: Error) => (broken = unlockError));
    throw isConnectionError(error) ? postgresUnreachable(pg.options.connectionString, error) : error;
  } finally {
    client.release(broken);
  }
};

const readStream = async (pg: PostgresStore, streamId: string, readOptions?: { fromPosition?: number }): Promise<Appended> => {
  const from = Math.max(1, readOptions?.fromPosition ?? 1);
  const rows = await query<EventRow>(
    pg,
    `SELECT ${COLUMNS} FROM ${pg.table} WHERE stream_id = $1 AND stream_position >= $2 ORDER BY stream_position`,
    [streamId, from],
  );
  const events = upcastAll(pg, rows.map(toRecorded));
  const last = events[events.length - 1];
  const version = last ? last.streamPosition : from === 1 ? 0 : await streamVersion(pg, streamId);
  return { events, version };
};

const appendToStream = async (
  pg: PostgresStore,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: AppendMetadata,
): Promise<Appended> => {
  if (pg.closed) throw new Error('The event store is closed.');
  if (events.length === 0) {
    const version = await streamVersion(pg, streamId);
    if (expectedVersion !== 'any' && version !== expectedVersion) throw new WrongExpectedVersionError(streamId, expectedVersion, version);
    return { version, events: [] };
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await appendOnce(pg, streamId, events, expectedVersion, metadata);
    } catch (error) {
      const retry = expectedVersion === 'any' && error instanceof WrongExpectedVersionError && attempt < ANY_VERSION_ATTEMPTS;
      if (!retry) throw error;
    }
  }
};

const appendToStreams = async (
  pg: PostgresStore,
  appends: StreamAppend[],
  metadata: AppendMetadata,
): Promise<(Appended | WrongExpectedVersionError)[]> => {
  if (pg.closed) throw new Error('The event store is closed.');
  const single = (append: StreamAppend) =>
    appendToStream(pg, append.streamId, append.events, append.expectedVersion, metadata).catch((error: unknown) => {
      if (error instanceof WrongExpectedVersionError) return error;
      throw error;
    });
  const distinct = new Set(appends.map(({ streamId }) => streamId)).size === appends.length;
  const together = appends.every(({ events, expectedVersion }) => events.length > 0 && expectedVersion !== 'any');
  if (appends.length < 2 || !distinct || !together) {
    const results = [];
    for (const append of appends) results.push(await single(append));
    return results;
  }
  try {
    return await appendManyOnce(pg, appends, metadata);
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    const conflict = code === WRONG_VERSION || (code === UNIQUE_VIOLATION && constraint === 'events_stream_position_unique');
    if (!conflict) throw error;
    // Nothing was written; one stream per append tells each caller whether it was theirs.
    return Promise.all(appends.map(single));
  }
};

/**
 * appendManyOnce on its own: one statement, one transaction, the global positions handed out under
 * the append lock as for one stream, and nothing written when any stream is at another version.
 */
const appendToStreamsAtomically = async (pg: PostgresStore, appends: StreamAppend[], metadata: AppendMetadata): Promise<Appended[]> => {
  if (pg.closed) throw new Error('The event store is closed.');
  if (new Set(appends.map(({ streamId }) => streamId)).size !== appends.length) {
    throw new Error('An atomic append names each stream once.');
  }
  if (appends.length === 0) return [];
  if (appends.some(({ events, expectedVersion }) => events.length === 0 && expectedVersion === 'any')) {
    throw new Error('An atomic append checks a stream it gives no events only at an exact version.');
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await appendManyOnce(pg, appends, metadata);
    } catch (error) {
      const { code, constraint, detail, hint } = error as { code?: string; constraint?: string; detail?: string; hint?: string };
      const refused = appends.find(({ streamId }) => streamId === hint);
      if (code === WRONG_VERSION && refused) throw new WrongExpectedVersionError(refused.streamId, refused.expectedVersion, Number(detail));
      const raced = code === WRONG_VERSION || (code === UNIQUE_VIOLATION && constraint === 'events_stream_position_unique');
      if (!raced) throw error;
      // A writer of one of the streams committed between the check and the insert (or a function
      // older than its HINT refused): the stream now at another version is the one refused.
      const stale = await staleStream(pg, appends);
      if (stale) throw stale;
      // Only an 'any' stream lost its race, which another try settles as appendToStream does.
      if (attempt >= ANY_VERSION_ATTEMPTS)
        throw new WrongExpectedVersionError(appends[0]!.streamId, appends[0]!.expectedVersion, undefined);
    }
  }
};

/** The refusal of the first stream (exact expected version) whose version is now another. */
const staleStream = async (pg: PostgresStore, appends: StreamAppend[]): Promise<WrongExpectedVersionError | undefined> => {
  for (const { streamId, expectedVersion } of appends) {
    if (expectedVersion === 'any') continue;
    const version = await streamVersion(pg, streamId);
    if (version !== expectedVersion) return new WrongExpectedVersionError(streamId, expectedVersion, version);
  }
  return undefined;
};

const findInStream = async (
  pg: PostgresStore,
  streamId: string,
  dataEquals: Record<string, readonly string[]>,
): Promise<RecordedEvent[]> => {
  const fields = Object.entries(dataEquals).filter(([, values]) => values.length > 0);
  if (fields.length === 0) return [];
  // The field is a literal, not a parameter, so a partial index on `data ? '<field>'` (the
  // ledger's migration 003) serves it; the name check keeps the literal a plain identifier.
  const selects = fields.map(([field], index) => {
    if (!DATA_FIELD.test(field)) throw new Error(`Invalid data field name "${field}".`);
    return `SELECT ${COLUMNS} FROM ${pg.table} WHERE stream_id = $1 AND data ? '${field}' AND data->>'${field}' = ANY($${index + 2}::text[])
          AND jsonb_typeof(data->'${field}') = 'string'`;
  });
  const rows = await query<EventRow>(
    pg,
    `${selects.join(' UNION ')} ORDER BY stream_position`,
    [streamId, ...fields.map(([, values]) => values)],
    `corridor_find_${pg.schema}_${fields.map(([field]) => field).join('_')}`,
  );
  return upcastAll(pg, rows.map(toRecorded));
};

const listEvents = async (
  pg: PostgresStore,
  filter: StoredEventsFilter,
  { before, limit }: { before?: StoredEventsKey; limit: number },
): Promise<{ events: RecordedEvent[]; totalCount: number }> => {
  // COLLATE "C": code-point order, the order the gateway merges the services' pages in.
  const { where, values } = storedEventsWhere(filter);
  const keyset = before
    ? ` AND (metadata->>'occurredAt' COLLATE "C", event_id::text COLLATE "C") < ($${values.length + 1}, $${values.length + 2})`
    : '';
  const order = `ORDER BY metadata->>'occurredAt' COLLATE "C" DESC, event_id::text COLLATE "C" DESC`;
  const [rows, count] = await Promise.all([
    query<EventRow>(pg, `SELECT ${COLUMNS} FROM ${pg.table} WHERE ${where}${keyset} ${order} LIMIT ${Math.max(0, Math.floor(limit))}`, [
      ...values,
      ...(before ? [before.occurredAt, before.eventId] : []),
    ]),
    query<{ count: string }>(pg, `SELECT count(*) FROM ${pg.table} WHERE ${where}`, values),
  ]);
  return { events: upcastAll(pg, rows.map(toRecorded)), totalCount: Number(count[0]?.count ?? 0) };
};

const readAll = async (pg: PostgresStore, { after, limit }: { after: bigint; limit: number }): Promise<RecordedEvent[]> => {
  // A row is final once its transaction is older than every transaction that might still
  // append; newer rows wait for a later call (see appendOnce for why this cannot skip one).
  const rows = await query<EventRow>(
    pg,
    `SELECT ${COLUMNS} FROM ${pg.table}
         WHERE global_position > $1 AND transaction_id < ${SAFE_HORIZON}
         ORDER BY global_position LIMIT $2`,
    [after.toString(), Math.min(Math.max(1, limit), MAX_READ_LIMIT)],
    'corridor_read_all',
  );
  return upcastAll(pg, rows.map(toRecorded));
};

const headPosition = async (pg: PostgresStore): Promise<bigint> => {
  const rows = await query<{ head: string }>(
    pg,
    `SELECT coalesce(max(global_position), 0)::text AS head FROM ${pg.table}
         WHERE transaction_id < ${SAFE_HORIZON}`,
    [],
    'corridor_head_position',
  );
  return BigInt(rows[0]?.head ?? '0');
};

const close = async (pg: PostgresStore): Promise<void> => {
  if (pg.closed) return;
  pg.closed = true;
  if (pg.ownPool) await pg.pool.end();
};
