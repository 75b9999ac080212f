import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';

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

export const transactionCountProjection: Projection<TransactionCountRow> = {
  name: 'transaction-counts',
  version: 1,
  canHandle: [...transactionOpeningEvents],
  entity: TransactionCountEntity,
  keyOf: (event) => String((event.data['transaction'] as { platformId: string }).platformId),
  evolve: evolveTransactionCount,
};
