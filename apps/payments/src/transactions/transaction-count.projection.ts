import { EntitySchema } from '@mikro-orm/core';
import type { Projection, ProjectionRows, RecordedEvent } from '@corridor/event-store';

/**
 * How many transactions each platform has, so an unfiltered GET /transactions answers totalCount
 * with one primary-key read instead of counting 100,000 rows on every page. The events that open a
 * Transaction stream are listed here; a new way to open one must be added (the count would
 * otherwise fall short of the list, which the e2e suites would show).
 */
export const transactionOpeningEvents = ['QuoteCreated', 'TransferCreated', 'IncomingPaymentCreated'] as const;

export type TransactionCountRow = { platformId: string; count: string };

export const TransactionCountEntity = new EntitySchema<TransactionCountRow>({
  name: 'TransactionCountRow',
  tableName: 'transaction_counts',
  properties: {
    platformId: { type: 'string', primary: true },
    count: { type: 'string', columnType: 'bigint' },
  },
});

export const evolveTransactionCount = (row: TransactionCountRow | null, recorded: RecordedEvent): TransactionCountRow | null => {
  const platformId = (recorded.data['transaction'] as { platformId?: string } | undefined)?.platformId;
  if (platformId === undefined) return row;
  return { platformId, count: (BigInt(row?.count ?? '0') + 1n).toString() };
};

/** Plain SQL for the rows (see transaction-view.rows.ts), so a batch of payment events needs no MikroORM unit of work. */
const transactionCountRows: ProjectionRows<TransactionCountRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<{ platform_id: string; count: string }>(
      `SELECT platform_id, count::text AS count FROM ${sql.schema}.transaction_counts WHERE platform_id = ANY($1::text[])`,
      [keys],
    );
    return new Map(rows.map((row) => [row.platform_id, { platformId: row.platform_id, count: row.count }]));
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.transaction_counts (platform_id, count)
         SELECT * FROM unnest($1::text[], $2::bigint[])
         ON CONFLICT (platform_id) DO UPDATE SET count = EXCLUDED.count`,
        [upserts.map((row) => row.platformId), upserts.map((row) => row.count)],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.transaction_counts WHERE platform_id = ANY($1::text[])`, [deletes]);
  },
};

export const transactionCountProjection: Projection<TransactionCountRow> = {
  name: 'transaction-counts',
  version: 1,
  canHandle: [...transactionOpeningEvents],
  entity: TransactionCountEntity,
  keyOf: (event) => String((event.data['transaction'] as { platformId: string }).platformId),
  evolve: evolveTransactionCount,
  rows: transactionCountRows,
};
