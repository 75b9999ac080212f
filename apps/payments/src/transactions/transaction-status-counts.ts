import type { ProjectionSql } from '@corridor/event-store';
import type { TransactionRow } from './transaction-view.projection';

// How many transactions each platform has in each status (decision 0052), so GET /transactions
// filtered on status alone answers its exact totalCount with one primary-key read. The counters
// are derived from the transactions read model's own row changes and written in the batch that
// writes the rows (transaction-view.rows.ts): a batch's rows and counters commit together, so the
// counter of a status is always count(*) of the rows in that status.

export const TRANSACTION_STATUS_COUNTS_TABLE = 'transaction_status_counts';

export type StatusCountDelta = { platformId: string; status: string; delta: number };

type Counted = Pick<TransactionRow, 'platformId' | 'status'>;

/**
 * Pure. What a batch's row changes do to the per-(platform, status) counters: each replaced or
 * deleted row takes one from its old status, each saved row adds one to its new status. A row
 * saved in the status it had nets zero; pairs that net zero are left out. Sorted, so concurrent
 * writers would take the counter rows' locks in one order.
 */
export const statusCountDeltas = (
  previous: ReadonlyMap<string, Counted>,
  changes: { upserts: readonly (Counted & { id: string })[]; deletes: readonly string[] },
): StatusCountDelta[] => {
  const sums = new Map<string, StatusCountDelta>();
  const add = (row: Counted, delta: number) => {
    const key = JSON.stringify([row.platformId, row.status]);
    const sum = sums.get(key) ?? { platformId: row.platformId, status: row.status, delta: 0 };
    sums.set(key, { ...sum, delta: sum.delta + delta });
  };
  for (const row of changes.upserts) {
    const before = previous.get(row.id);
    if (before) add(before, -1);
    add(row, 1);
  }
  for (const id of changes.deletes) {
    const before = previous.get(id);
    if (before) add(before, -1);
  }
  return [...sums.values()]
    .filter((sum) => sum.delta !== 0)
    .sort((a, b) => (a.platformId === b.platformId ? compare(a.status, b.status) : compare(a.platformId, b.platformId)));
};

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One statement: every counter the batch moves, `count = count + delta`, inside the batch's
 * transaction. A counter below zero means the counters and the rows disagree (a bug, or rows
 * written behind the projection's back): the batch fails, so the read model halts and says so,
 * rather than serving a wrong count. (A CHECK constraint cannot say this: PostgreSQL checks the
 * proposed row of an upsert, a negative delta, before it finds the conflict.)
 */
export const applyStatusCountDeltas = async (sql: ProjectionSql, deltas: StatusCountDelta[]): Promise<void> => {
  if (deltas.length === 0) return;
  const counted = await sql.query<{ platform_id: string; status: string; count: string }>(
    `INSERT INTO ${sql.schema}.${TRANSACTION_STATUS_COUNTS_TABLE} AS c (platform_id, status, count)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
     ON CONFLICT (platform_id, status) DO UPDATE SET count = c.count + EXCLUDED.count
     RETURNING platform_id, status, count::text`,
    [deltas.map((delta) => delta.platformId), deltas.map((delta) => delta.status), deltas.map((delta) => delta.delta)],
  );
  const negative = counted.find((row) => BigInt(row.count) < 0n);
  if (negative) {
    throw new Error(
      `The ${negative.status} transaction counter of ${negative.platform_id} would fall to ${negative.count}: the counters disagree ` +
        'with the transactions rows. Rebuild the transactions projection (npm run replay) to recount them.',
    );
  }
};

/** The counter for one platform and status: absent means none. */
export const STATUS_COUNT_FOR_PLATFORM =
  `SELECT count FROM payments.${TRANSACTION_STATUS_COUNTS_TABLE} ` + 'WHERE platform_id = $1 AND status = $2';
