import type { ProjectionRows } from '@corridor/event-store';
import type { TransactionRow } from './transaction-view.projection';
import { applyStatusCountDeltas, statusCountDeltas, TRANSACTION_STATUS_COUNTS_TABLE } from './transaction-status-counts';

// The transactions read model written with plain SQL (one SELECT and one set-based upsert per
// batch) instead of MikroORM's unit of work: the row is one jsonb record plus the columns lists
// filter on. Batches that only projections with their own rows handle (incoming payments' events)
// then run on one pooled connection; the others keep the MikroORM path. The per-(platform, status)
// counters are derived from the same row changes and written in the same transaction.

type Columns = {
  id: string;
  platform_id: string;
  customer_id: string;
  platform_customer_id: string;
  type: TransactionRow['type'];
  status: TransactionRow['status'];
  record: TransactionRow['record'];
  source_account: string | null;
  destination_account: string | null;
  reference: string | null;
  created_at: Date;
  updated_at: Date;
};

export const transactionViewRows: ProjectionRows<TransactionRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<Columns>(
      `SELECT id, platform_id, customer_id, platform_customer_id, type, status, record, source_account, destination_account, reference,
       created_at, updated_at FROM ${sql.schema}.transactions WHERE id = ANY($1::text[])`,
      [keys],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          platformId: row.platform_id,
          customerId: row.customer_id,
          platformCustomerId: row.platform_customer_id,
          type: row.type,
          status: row.status,
          record: row.record,
          sourceAccount: row.source_account,
          destinationAccount: row.destination_account,
          reference: row.reference,
          createdAt: new Date(row.created_at),
          updatedAt: new Date(row.updated_at),
        },
      ]),
    );
  },
  save: async (sql, { upserts, deletes, previous }) => {
    await applyStatusCountDeltas(sql, statusCountDeltas(previous, { upserts, deletes }));
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.transactions (id, platform_id, customer_id, platform_customer_id, type, status, record, source_account,
         destination_account, reference, created_at, updated_at)
         SELECT r.id, r.platform_id, r.customer_id, r.platform_customer_id, r.type, r.status, r.record, r.source_account,
         r.destination_account, r.reference, r.created_at, r.updated_at
           FROM jsonb_to_recordset($1::jsonb) AS r(id text, platform_id text, customer_id text, platform_customer_id text, type text,
           status text, record jsonb,
             source_account text, destination_account text, reference text, created_at timestamptz, updated_at timestamptz)
         ON CONFLICT (id) DO UPDATE
         SET platform_id = EXCLUDED.platform_id, customer_id = EXCLUDED.customer_id, platform_customer_id = EXCLUDED.platform_customer_id,
           type = EXCLUDED.type, status = EXCLUDED.status, record = EXCLUDED.record, source_account = EXCLUDED.source_account,
           destination_account = EXCLUDED.destination_account, reference = EXCLUDED.reference, created_at = EXCLUDED.created_at,
           updated_at = EXCLUDED.updated_at`,
        [
          JSON.stringify(
            upserts.map((row) => ({
              id: row.id,
              platform_id: row.platformId,
              customer_id: row.customerId,
              platform_customer_id: row.platformCustomerId,
              type: row.type,
              status: row.status,
              record: row.record,
              source_account: row.sourceAccount,
              destination_account: row.destinationAccount,
              reference: row.reference,
              created_at: row.createdAt.toISOString(),
              updated_at: row.updatedAt.toISOString(),
            })),
          ),
        ],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.transactions WHERE id = ANY($1::text[])`, [deletes]);
  },
  derivedTables: [TRANSACTION_STATUS_COUNTS_TABLE],
};
