import { Pool } from 'pg';

export type ProcessedStoreOptions = {
  schema: string;
  consumer: string;
} & ({ pool: Pool } | { connectionString: string });

export type ProcessedStore = {
  isProcessed(msgId: string): Promise<boolean>;
  markProcessed(msgId: string): Promise<void>;
  /** Ends the pool only if this store created it. */
  close(): Promise<void>;
};

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Remembers which messages a consumer has handled, in the consuming service's own schema, so
 * a redelivered message is recognised. The table is created on first use.
 */
export function createProcessedStore(options: ProcessedStoreOptions): ProcessedStore {
  if (!IDENTIFIER.test(options.schema)) throw new Error(`Schema name "${options.schema}" is not a plain identifier.`);
  const ownsPool = !('pool' in options);
  const pool = 'pool' in options ? options.pool : new Pool({ connectionString: options.connectionString, max: 2 });
  const table = `"${options.schema}".processed_messages`;
  let ready: Promise<unknown> | undefined;
  const ensureTable = () =>
    (ready ??= pool
      .query(
        `create schema if not exists "${options.schema}";
         create table if not exists ${table} (
           consumer text not null,
           msg_id text not null,
           processed_at timestamptz not null default now(),
           primary key (consumer, msg_id))`,
      )
      .catch((error: unknown) => {
        ready = undefined;
        throw error;
      }));
  return {
    async isProcessed(msgId) {
      await ensureTable();
      const result = await pool.query(`select 1 from ${table} where consumer = $1 and msg_id = $2`, [options.consumer, msgId]);
      return (result.rowCount ?? 0) > 0;
    },
    async markProcessed(msgId) {
      await ensureTable();
      await pool.query(`insert into ${table} (consumer, msg_id) values ($1, $2) on conflict do nothing`, [options.consumer, msgId]);
    },
    async close() {
      if (ownsPool) await pool.end();
    },
  };
}
