import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type ExecutionState, type ExecutionStep, executionEventTypes } from './execution-events';

/** Where each executed payment stands in its process, and from when its next step is due. */
export type PaymentExecutionRow = { transactionId: string; platformId: string; step: ExecutionStep; dueAt: Date; updatedAt: Date };

export const PaymentExecutionEntity = new EntitySchema<PaymentExecutionRow>({
  name: 'PaymentExecutionRow',
  tableName: 'payment_executions',
  properties: {
    transactionId: { type: 'string', primary: true },
    platformId: { type: 'string' },
    step: { type: 'string' },
    dueAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

/** Every execution event carries the process state after it, so the row is that state. */
export const evolvePaymentExecution = (row: PaymentExecutionRow | null, recorded: RecordedEvent): PaymentExecutionRow | null => {
  const execution = recorded.data['execution'] as ExecutionState | undefined;
  if (!execution) return row;
  return {
    transactionId: recorded.streamId,
    platformId: String(recorded.metadata.platformId),
    step: execution.step,
    dueAt: new Date(execution.dueAt),
    updatedAt: new Date(String(recorded.data['at'])),
  };
};

export const paymentExecutionProjection: Projection<PaymentExecutionRow> = {
  name: 'payment-executions',
  version: 1,
  canHandle: [...executionEventTypes],
  entity: PaymentExecutionEntity,
  keyOf: (event) => event.streamId,
  evolve: evolvePaymentExecution,
};
