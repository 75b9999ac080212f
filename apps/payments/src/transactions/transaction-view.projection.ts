import { EntitySchema } from '@mikro-orm/core';
import type { OutgoingTransactionStatus, TransactionRecord } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { executionStatusChanges } from '../execution/execution-events';

/** One row per transaction, with the columns GET /transactions filters and pages on. */
export type TransactionRow = {
  id: string;
  platformId: string;
  customerId: string;
  platformCustomerId: string;
  type: 'OUTGOING';
  status: OutgoingTransactionStatus;
  record: TransactionRecord;
  createdAt: Date;
  updatedAt: Date;
};

export const TransactionEntity = new EntitySchema<TransactionRow>({
  name: 'TransactionRow',
  tableName: 'transactions',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    customerId: { type: 'string' },
    platformCustomerId: { type: 'string' },
    type: { type: 'string' },
    status: { type: 'string' },
    record: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

/** Every event of a Transaction stream carries the transaction after it, so the row is that record. */
export const evolveTransactionView = (_row: TransactionRow | null, recorded: RecordedEvent): TransactionRow | null => {
  const record = recorded.data['transaction'] as TransactionRecord | undefined;
  if (!record) return _row;
  return {
    id: record.id,
    platformId: record.platformId,
    customerId: record.customerId,
    platformCustomerId: record.platformCustomerId,
    type: record.type,
    status: record.status,
    record,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
  };
};

export const transactionViewProjection: Projection<TransactionRow> = {
  name: 'transactions',
  version: 1,
  canHandle: ['QuoteCreated', 'QuoteExpired', ...executionStatusChanges],
  entity: TransactionEntity,
  keyOf: (event) => String((event.data['transaction'] as TransactionRecord).id),
  evolve: evolveTransactionView,
};
