import { Client } from 'pg';
import { advisoryKey, assertSchemaName } from './sql-names';
import { isConnectionError, postgresUnreachable } from './infra-errors';

/**
 * The event store's tables in one service schema. `transaction_id` records the writing
 * transaction so readers can hold back events that might still be overtaken by a late commit.
 */
export const eventStoreDdl = (schema: string): string => {
  const s = assertSchemaName(schema);
  return `
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
${checkpointDdl(s)}`;
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
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
};
