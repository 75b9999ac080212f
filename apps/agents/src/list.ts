import { createHash } from 'node:crypto';
import { decodeCursor, type Page, toPage } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';

// Keyset paging on (created_at, id) for the agents service's lists, as GET /cards does: a cursor
// names the last row of a page, so rows inserted while a client pages never shift a boundary.

export type Filters = { clauses: string[]; values: unknown[] };

export const filters = (
  platformId: string,
): Filters & { equal: (column: string, value: unknown) => void; compare: (column: string, op: '>=' | '<=', value: unknown) => void } => {
  const values: unknown[] = [platformId];
  const clauses = ['platform_id = $1'];
  return {
    clauses,
    values,
    equal: (column, value) => {
      if (value !== undefined) clauses.push(`${column} = $${values.push(value)}`);
    },
    compare: (column, op, value) => {
      if (value !== undefined) clauses.push(`${column} ${op} $${values.push(new Date(String(value)))}::timestamptz`);
    },
  };
};

export const pageOf = async <Row extends { id: string; created_at: Date }, T>(
  eventSourcing: EventSourcing,
  table: string,
  column: string,
  where: Filters,
  page: { limit: number; cursor?: string; sortOrder?: 'asc' | 'desc' },
  render: (row: Row) => T,
): Promise<Page<T>> => {
  const { limit, cursor, sortOrder = 'desc' } = page;
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const direction = sortOrder === 'asc' ? 'ASC' : 'DESC';
  const values = [...where.values];
  const keyset = after
    ? ` AND (created_at, id) ${sortOrder === 'asc' ? '>' : '<'} ($${values.push(new Date(after.createdAt))}::timestamptz, ` +
      `$${values.push(after.id)}::text)`
    : '';
  const condition = where.clauses.join(' AND ');
  const pageSql = `SELECT id, ${column}, created_at FROM ${table} WHERE ${condition}${keyset}
                   ORDER BY created_at ${direction}, id ${direction} LIMIT $${values.push(limit + 1)}`;
  const countSql = `SELECT count(*) AS count FROM ${table} WHERE ${condition}`;
  const [rows, [count]] = await Promise.all([
    eventSourcing.read<Row>(statementName('page', pageSql), pageSql, values),
    eventSourcing.read<{ count: string }>(statementName('count', countSql), countSql, where.values),
  ]);
  return toPage(
    rows.map((row) => ({ ...row, createdAt: row.created_at })),
    limit,
    Number(count?.count ?? 0),
    render,
  );
};

/** Prepared statements are named by their text: each filter combination is its own plan. */
const statementName = (prefix: string, sql: string): string =>
  `agents-${prefix}-${createHash('sha1').update(sql).digest('hex').slice(0, 12)}`;
