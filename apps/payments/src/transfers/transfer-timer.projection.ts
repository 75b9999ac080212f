import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { TransactionEvent } from '../transactions/transaction';
import { type TransferDirection, transferEventTypes } from '../transactions/transfer-events';

/** The persisted timer of a transfer: when the rail is next looked at, while it is under way. */
export type TransferTimerRow = {
  id: string;
  platformId: string;
  direction: TransferDirection;
  status: string;
  dueAt: Date;
  updatedAt: Date;
};

export const TransferTimerEntity = new EntitySchema<TransferTimerRow>({
  name: 'TransferTimerRow',
  tableName: 'transfers',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    direction: { type: 'string' },
    status: { type: 'string' },
    dueAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveTransferTimer = (row: TransferTimerRow | null, recorded: RecordedEvent): TransferTimerRow | null => {
  const event = recorded as unknown as TransactionEvent;
  switch (event.type) {
    case 'TransferCreated': {
      const { transfer, transaction } = event.data;
      // Due at once: the rail is asked right after the reply, and by the sweep if that is lost.
      const at = new Date(transfer.createdAt);
      return {
        id: transfer.transactionId,
        platformId: transfer.platformId,
        direction: transfer.direction,
        status: transaction.status,
        dueAt: at,
        updatedAt: at,
      };
    }
    case 'TransferSubmitted':
      return (
        row && {
          ...row,
          status: event.data.transaction.status,
          dueAt: new Date(event.data.dueAt),
          updatedAt: new Date(event.data.submittedAt),
        }
      );
    case 'TransferCompleted':
    case 'TransferFailed':
      return row && { ...row, status: event.data.transaction.status, updatedAt: new Date(event.data.transaction.updatedAt) };
    default:
      return row;
  }
};

export const transferTimerProjection: Projection<TransferTimerRow> = {
  name: 'transfer-timers',
  version: 1,
  canHandle: [...transferEventTypes],
  entity: TransferTimerEntity,
  keyOf: (event) => String(event.data['transactionId'] ?? (event.data['transfer'] as { transactionId: string }).transactionId),
  evolve: evolveTransferTimer,
};
