import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { createHash } from 'node:crypto';
import {
  type AnyTransactionRecord,
  decodeCursor,
  DomainError,
  type IncomingTransactionWire,
  isIdOf,
  type ListTransactionsData,
  type Page,
  type ServiceRequest,
  subjects,
  toAnyTransactionWire,
  toPage,
  type TransactionIdData,
  type TransactionWire,
} from '@corridor/contracts';
import { asOfTime, EventSourcing, foldAsOf, type RecordedEvent } from '@corridor/event-store';
import { STATUS_COUNT_FOR_PLATFORM } from './transaction-status-counts';
import { evolveTransactionView, TransactionEntity, type TransactionRow } from './transaction-view.projection';

export const transactionNotFound = (transactionId: string): DomainError =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });

@Controller()
export class TransactionsController {
  constructor(private readonly eventSourcing: EventSourcing) {}

  @MessagePattern(subjects.payments.transaction.get)
  async get(@Payload() request: ServiceRequest<TransactionIdData>): Promise<TransactionWire | IncomingTransactionWire> {
    const { transactionId } = request.data;
    if (!isIdOf('Transaction', transactionId)) throw transactionNotFound(String(transactionId));
    if (request.data.asOf !== undefined) return this.asOf(transactionId, request.context.platformId, request.data.asOf);
    const row = await this.eventSourcing.em.findOne(TransactionEntity, { id: transactionId, platformId: request.context.platformId });
    if (!row) throw transactionNotFound(transactionId);
    return toAnyTransactionWire(row.record);
  }

  /**
   * The transaction as it stood at `asOf`: its stream's events up to that time folded the way the
   * read model folds them (each event carries the record after it). Before its first event, or for
   * another platform, it did not exist: not found.
   */
  private async asOf(transactionId: string, platformId: string, asOf: string): Promise<TransactionWire | IncomingTransactionWire> {
    const { events } = await this.eventSourcing.store.readStream(transactionId);
    const row = foldTransactionAsOf(events, asOfTime(asOf));
    if (!row || row.platformId !== platformId) throw transactionNotFound(transactionId);
    return toAnyTransactionWire(row.record);
  }

  /**
   * Keyset paging on (createdAt, id) in either direction: a cursor names the last row of a page,
   * so rows created while a client pages never shift a boundary. Every filter is scoped to the
   * asking platform first. The page is one prepared statement whose keyset is a row comparison,
   * which PostgreSQL turns into an index bound: any page costs the same as the first (the ORM's
   * `a < x OR (a = x AND b < y)` made it scan every row before the cursor). totalCount of an
   * unfiltered list is the per-platform counter, of a list filtered on status alone the
   * per-(platform, status) counter (decision 0052); any other filter is counted (bench/README.md).
   */
  @MessagePattern(subjects.payments.transaction.list)
  async list(@Payload() request: ServiceRequest<ListTransactionsData>): Promise<Page<TransactionWire | IncomingTransactionWire>> {
    const { sortOrder = 'desc', limit, cursor } = request.data;
    const filters = transactionFilters(request.context.platformId, request.data);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const direction = sortOrder === 'asc' ? 'ASC' : 'DESC';
    const values = [...filters.values];
    const keyset = after
      ? ` AND (created_at, id) ${sortOrder === 'asc' ? '>' : '<'} ($${values.push(new Date(after.createdAt))}::timestamptz, ` +
        `$${values.push(after.id)}::text)`
      : '';
    const pageSql = `SELECT id, record, created_at FROM payments.transactions WHERE ${filters.where}${keyset}
                     ORDER BY created_at ${direction}, id ${direction} LIMIT $${values.push(limit + 1)}`;
    const [rows, totalCount] = await Promise.all([
      this.eventSourcing.read<{ id: string; record: AnyTransactionRecord; created_at: Date }>(
        statementName('transactions-page', pageSql),
        pageSql,
        values,
      ),
      this.count(filters),
    ]);
    return toPage(
      rows.map((row) => ({ id: row.id, createdAt: row.created_at, record: row.record })),
      limit,
      totalCount,
      (row) => toAnyTransactionWire(row.record),
    );
  }

  private async count(filters: Filters): Promise<number> {
    const { name, text, values } = countStatement(filters);
    const [row] = await this.eventSourcing.read<{ count: string }>(name, text, values);
    return Number(row?.count ?? 0);
  }
}

const COUNT_FOR_PLATFORM = 'SELECT count FROM payments.transaction_counts WHERE platform_id = $1';

/** Where a list's exact totalCount is read: a counter that holds exactly the rows selected, else count(*) of them. */
type Counter = { kind: 'platform'; platformId: string } | { kind: 'status'; platformId: string; status: string } | { kind: 'rows' };

type Filters = { where: string; values: unknown[]; counter: Counter };

/**
 * The WHERE clause of a list, with numbered parameters; the platform is always the first. Each
 * filter adds one clause, so the platform alone is the per-platform counter's rows and the platform
 * and a status alone the per-(platform, status) counter's (decision 0052); anything else is counted.
 */
export const transactionFilters = (platformId: string, data: ListTransactionsData): Filters => {
  const values: unknown[] = [platformId];
  const clauses = ['platform_id = $1'];
  const equal = (column: string, value: unknown) => clauses.push(`${column} = $${values.push(value)}`);
  if (data.customerId !== undefined) equal('customer_id', data.customerId);
  if (data.platformCustomerId !== undefined) equal('platform_customer_id', data.platformCustomerId);
  if (data.status !== undefined) equal('status', data.status);
  if (data.type !== undefined) equal('type', data.type);
  if (data.senderAccountIdentifier !== undefined) equal('source_account', data.senderAccountIdentifier);
  if (data.receiverAccountIdentifier !== undefined) equal('destination_account', data.receiverAccountIdentifier);
  if (data.accountIdentifier !== undefined) {
    const at = values.push(data.accountIdentifier);
    clauses.push(`(source_account = $${at} OR destination_account = $${at})`);
  }
  if (data.reference !== undefined) equal('reference', data.reference);
  if (data.startDate !== undefined) clauses.push(`created_at >= $${values.push(new Date(data.startDate))}::timestamptz`);
  if (data.endDate !== undefined) clauses.push(`created_at <= $${values.push(new Date(data.endDate))}::timestamptz`);
  const counter: Counter =
    clauses.length === 1
      ? { kind: 'platform', platformId }
      : clauses.length === 2 && data.status !== undefined
        ? { kind: 'status', platformId, status: data.status }
        : { kind: 'rows' };
  return { where: clauses.join(' AND '), values, counter };
};

/** The statement answering a list's totalCount: a primary-key read of its counter, else count(*) of the rows. */
export const countStatement = (filters: Filters): { name: string; text: string; values: unknown[] } => {
  const { counter } = filters;
  if (counter.kind === 'platform') return { name: 'transactions-count-platform', text: COUNT_FOR_PLATFORM, values: [counter.platformId] };
  if (counter.kind === 'status') {
    return { name: 'transactions-count-status', text: STATUS_COUNT_FOR_PLATFORM, values: [counter.platformId, counter.status] };
  }
  const text = `SELECT count(*) AS count FROM payments.transactions WHERE ${filters.where}`;
  return { name: statementName('transactions-count', text), text, values: filters.values };
};

/** One prepared statement per distinct query text (the filters a request combines). */
const statementName = (prefix: string, sql: string): string => `${prefix}-${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;

/** The transaction view after every event that occurred at or before `at` (null: none had). */
export const foldTransactionAsOf = (events: RecordedEvent[], at: Date): TransactionRow | null =>
  foldAsOf<TransactionRow>(events, at, evolveTransactionView);
