import { EntitySchema } from '@mikro-orm/core';
import {
  type AnyTransactionRecord,
  isUmaIncomingRecord,
  type IncomingTransactionStatus,
  type OutgoingTransactionStatus,
  type TransactionType,
} from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { incomingPaymentEventTypes } from '../incoming/incoming-payment';
import { receiptEventTypes, transferEventTypes } from './transfer-events';
import { transactionViewRows } from './transaction-view.rows';
import { executionStatusChanges } from './execution-events';

/** One row per transaction, with the columns GET /transactions filters and pages on. */
export type TransactionRow = {
  id: string;
  platformId: string;
  customerId: string;
  platformCustomerId: string;
  type: TransactionType;
  status: OutgoingTransactionStatus | IncomingTransactionStatus;
  record: AnyTransactionRecord;
  /** The source's account id (or none), the destination's account id or UMA address, the rail reference: list filters. */
  sourceAccount: string | null;
  destinationAccount: string | null;
  reference: string | null;
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
    sourceAccount: { type: 'string', nullable: true },
    destinationAccount: { type: 'string', nullable: true },
    reference: { type: 'string', nullable: true },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

/**
 * What the accountIdentifier, sender/receiverAccountIdentifier and reference filters match: the
 * account ids on either side (an UMA address for an UMA destination) and the reference the money
 * travels with (reconciliationInstructions, else the real-time funding instructions' reference).
 */
export const accountsAndReferenceOf = (
  record: AnyTransactionRecord,
): Pick<TransactionRow, 'sourceAccount' | 'destinationAccount' | 'reference'> => {
  // An incoming UMA payment has no source account: its sender is an UMA address outside Corridor.
  if (isUmaIncomingRecord(record))
    return {
      sourceAccount: null,
      destinationAccount: record.destination.accountId,
      reference: record.reconciliationInstructions?.reference ?? null,
    };
  const instructed = record.paymentInstructions
    ?.map((instructions) => instructions.accountOrWalletInfo['reference'])
    .find((reference) => typeof reference === 'string');
  return {
    sourceAccount: record.source.sourceType === 'ACCOUNT' ? record.source.accountId : null,
    destinationAccount: record.destination.destinationType === 'ACCOUNT' ? record.destination.accountId : record.destination.umaAddress,
    reference: record.reconciliationInstructions?.reference ?? (typeof instructed === 'string' ? instructed : null),
  };
};

/** Every event of a Transaction stream carries the transaction after it, so the row is that record. */
export const evolveTransactionView = (_row: TransactionRow | null, recorded: RecordedEvent): TransactionRow | null => {
  const record = recorded.data['transaction'] as AnyTransactionRecord | undefined;
  if (!record) return _row;
  return {
    id: record.id,
    platformId: record.platformId,
    customerId: record.customerId,
    platformCustomerId: record.platformCustomerId,
    type: record.type,
    status: record.status,
    record,
    ...accountsAndReferenceOf(record),
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
  };
};

export const transactionViewProjection: Projection<TransactionRow> = {
  name: 'transactions',
  version: 4,
  canHandle: [
    'QuoteCreated',
    'QuoteExpired',
    ...executionStatusChanges,
    ...transferEventTypes,
    ...receiptEventTypes,
    ...incomingPaymentEventTypes,
  ],
  entity: TransactionEntity,
  keyOf: (event) => String((event.data['transaction'] as AnyTransactionRecord).id),
  evolve: evolveTransactionView,
  rows: transactionViewRows,
};
