import { Client } from 'pg';
import { advisoryKey, assertSchemaName } from './sql-names';
import { isConnectionError, postgresUnreachable } from './infra-errors';

/**
 * The event store's tables in one service schema. `transaction_id` records the writing
 * transaction so readers can hold back events that might still be overtaken by a late commit.
 */
export const eventStoreDdl = (schema: string): string => {
  const s = assertSchemaName(schema);
  return `${eventsTableDdl(s)}${appendEventsDdl(s)}${appendEventsToStreamsDdl(s)}
${snapshotDdl(s)}
${checkpointDdl(s)}`;
};

/** The events table and the indexes of its listings. */
const eventsTableDdl = (s: string): string => `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.events (
  global_position bigserial PRIMARY KEY,
  event_id uuid NOT NULL UNIQUE,
  stream_id text NOT NULL,
  stream_position integer NOT NULL CHECK (stream_position > 0),
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT events_stream_position_unique UNIQUE (stream_id, stream_position)
);
-- GET /events and npm run trace (decision 0037, amendment): a story by its correlation, and a
-- platform's events newest first on (occurredAt, id), the expressions written exactly as
-- stored-events-query.ts writes them (collation included) so the planner matches them.
-- On a large table an operator creates them CONCURRENTLY beforehand; these then do nothing.
CREATE INDEX IF NOT EXISTS events_correlation ON ${s}.events ((metadata->>'correlationId'));
CREATE INDEX IF NOT EXISTS events_platform_occurred
  ON ${s}.events ((metadata->>'platformId'), (metadata->>'occurredAt' COLLATE "C"), (event_id::text COLLATE "C"));`;

/** One stream's append as one statement. */
const appendEventsDdl = (s: string): string => `
-- The whole append in one statement (see appendOnce in postgres-event-store.ts). p_expected -1
-- means any version. The lock is session-level so it can be released before the commit.
CREATE OR REPLACE FUNCTION ${s}.append_events(
  p_stream_id text, p_expected integer, p_lock bigint,
  p_event_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS SETOF ${s}.events LANGUAGE plpgsql AS $fn$
DECLARE
  v_current integer;
BEGIN
  SELECT coalesce(max(stream_position), 0) INTO v_current FROM ${s}.events WHERE stream_id = p_stream_id;
  IF p_expected >= 0 AND v_current <> p_expected THEN
    RAISE EXCEPTION 'stream % is at version %, not %', p_stream_id, v_current, p_expected
      USING ERRCODE = 'CR409', DETAIL = v_current::text;
  END IF;
  PERFORM pg_advisory_lock(p_lock);
  RETURN QUERY
    WITH inserted AS (
      INSERT INTO ${s}.events (event_id, stream_id, stream_position, type, data, metadata)
      SELECT e.event_id, p_stream_id, v_current + e.ordinal::integer, e.type, e.data, e.metadata
      FROM unnest(p_event_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS e(event_id, type, data, metadata, ordinal)
      ORDER BY e.ordinal
      RETURNING *
    )
    SELECT * FROM inserted;
  PERFORM pg_advisory_unlock(p_lock);
END
$fn$;`;

/** Several streams' appends as one statement. */
const appendEventsToStreamsDdl = (s: string): string => `
-- Several streams in one statement and one commit (group commit). Event i goes to stream
-- p_stream_ids[p_stream_index[i]] at that stream's version + p_offset[i]. Every stream is checked
-- before anything is written, so the append is all or nothing; a stream may appear only once.
-- A refusal names the stream in HINT and its version in DETAIL.
CREATE OR REPLACE FUNCTION ${s}.append_events_to_streams(
  p_stream_ids text[], p_expected integer[], p_lock bigint,
  p_stream_index integer[], p_offset integer[],
  p_event_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[]
) RETURNS SETOF ${s}.events LANGUAGE plpgsql AS $fn$
DECLARE
  v_current integer[] := '{}';
  v_version integer;
BEGIN
  FOR i IN 1..coalesce(array_length(p_stream_ids, 1), 0) LOOP
    SELECT coalesce(max(stream_position), 0) INTO v_version FROM ${s}.events WHERE stream_id = p_stream_ids[i];
    IF p_expected[i] >= 0 AND v_version <> p_expected[i] THEN
      RAISE EXCEPTION 'stream % is at version %, not %', p_stream_ids[i], v_version, p_expected[i]
        USING ERRCODE = 'CR409', DETAIL = v_version::text, HINT = p_stream_ids[i];
    END IF;
    v_current := v_current || v_version;
  END LOOP;
  PERFORM pg_advisory_lock(p_lock);
  RETURN QUERY
    WITH inserted AS (
      INSERT INTO ${s}.events (event_id, stream_id, stream_position, type, data, metadata)
      SELECT e.event_id, p_stream_ids[e.stream_index], v_current[e.stream_index] + e.position_offset, e.type, e.data, e.metadata
      FROM unnest(p_stream_index, p_offset, p_event_ids, p_types, p_data, p_metadata) WITH ORDINALITY
        AS e(stream_index, position_offset, event_id, type, data, metadata, ordinal)
      ORDER BY e.ordinal
      RETURNING *
    )
    SELECT * FROM inserted;
  PERFORM pg_advisory_unlock(p_lock);
END
$fn$;`;

/**
 * Snapshots of stream states for the command path (snapshot-store.ts): a cache, one row per
 * stream, safe to delete at any time. Replay and projections never read it.
 */
export const snapshotDdl = (schema: string): string => {
  const s = assertSchemaName(schema);
  return `
CREATE TABLE IF NOT EXISTS ${s}.snapshots (
  stream_id text PRIMARY KEY,
  version integer NOT NULL CHECK (version > 0),
  decider_version text NOT NULL,
  state jsonb NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now()
);`;
};

/** Checkpoint tables of projection runners and outbox relays; also run by the runner through its ORM. */
export const checkpointDdl = (schema: string): string => {
  const s = assertSchemaName(schema);
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.projection_checkpoints (
  name text PRIMARY KEY,
  version integer NOT NULL,
  position bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A projection halted on an event it cannot apply, and the last failure (kept after recovery).
ALTER TABLE ${s}.projection_checkpoints
  ADD COLUMN IF NOT EXISTS halted_at timestamptz,
  ADD COLUMN IF NOT EXISTS last_error text,
  ADD COLUMN IF NOT EXISTS last_error_at timestamptz,
  ADD COLUMN IF NOT EXISTS last_error_event jsonb;
CREATE TABLE IF NOT EXISTS ${s}.outbox_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`;
};

/** Two processes starting at once would race on CREATE ... IF NOT EXISTS (a catalog unique violation). */
export const ddlLockKey = (schema: string): number => advisoryKey(`corridor.ddl:${schema}`);

export const connectClient = async (connectionString: string): Promise<Client> => {
  const client = new Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    // The connect error is thrown below; ending a client that never connected has nothing to report.
    await client.end().catch(() => undefined);
    throw isConnectionError(error) ? postgresUnreachable(connectionString, error) : error;
  }
  return client;
};

/** Idempotent: creates the schema, the events table and the checkpoint tables when missing. */
export const ensureEventStoreSchema = async (connectionString: string, schema: string): Promise<void> => {
  const ddl = eventStoreDdl(schema);
  const client = await connectClient(connectionString);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [ddlLockKey(schema)]);
    await client.query(ddl);
    await client.query('COMMIT');
  } catch (error) {
    // The DDL's own error is rethrown; a failed ROLLBACK ends with the session in `finally`.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
};
