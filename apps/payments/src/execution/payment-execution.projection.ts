import { EntitySchema } from '@mikro-orm/core';
import type { Projection, ProjectionRows, RecordedEvent } from '@corridor/event-store';
import { type ExecutionState, type ExecutionStep, executionEventTypes } from '../transactions/execution-events';

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

/** Plain SQL for the rows (see transaction-view.rows.ts): one SELECT and one upsert per batch, no MikroORM unit of work. */
const paymentExecutionRows: ProjectionRows<PaymentExecutionRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<{ transaction_id: string; platform_id: string; step: ExecutionStep; due_at: Date; updated_at: Date }>(
      `SELECT transaction_id, platform_id, step, due_at, updated_at FROM ${sql.schema}.payment_executions
       WHERE transaction_id = ANY($1::text[])`,
      [keys],
    );
    return new Map(
      rows.map((row) => [
        row.transaction_id,
        {
          transactionId: row.transaction_id,
          platformId: row.platform_id,
          step: row.step,
          dueAt: new Date(row.due_at),
          updatedAt: new Date(row.updated_at),
        },
      ]),
    );
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.payment_executions (transaction_id, platform_id, step, due_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
         ON CONFLICT (transaction_id) DO UPDATE
         SET platform_id = EXCLUDED.platform_id, step = EXCLUDED.step, due_at = EXCLUDED.due_at, updated_at = EXCLUDED.updated_at`,
        [
          upserts.map((row) => row.transactionId),
          upserts.map((row) => row.platformId),
          upserts.map((row) => row.step),
          upserts.map((row) => row.dueAt.toISOString()),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    }
    if (deletes.length > 0)
      await sql.query(`DELETE FROM ${sql.schema}.payment_executions WHERE transaction_id = ANY($1::text[])`, [deletes]);
  },
};

export const paymentExecutionProjection: Projection<PaymentExecutionRow> = {
  name: 'payment-executions',
  version: 1,
  canHandle: [...executionEventTypes],
  entity: PaymentExecutionEntity,
  keyOf: (event) => event.streamId,
  evolve: evolvePaymentExecution,
  rows: paymentExecutionRows,
};
