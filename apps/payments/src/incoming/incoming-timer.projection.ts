import { EntitySchema } from '@mikro-orm/core';
import type { Projection, ProjectionRows, RecordedEvent } from '@corridor/event-store';
import { type IncomingPaymentEvent, type IncomingPhase, incomingPaymentEventTypes, phaseAfter } from './incoming-payment';

/**
 * The persisted timer of every incoming payment: what it waits for and until when. The sweep job
 * (incoming-timer.job.ts) reads the rows that fell due; a finished payment's row keeps phase DONE
 * and no due time, so the partial index stays small.
 */
export type IncomingTimerRow = {
  id: string;
  platformId: string;
  phase: IncomingPhase;
  dueAt: Date | null;
  updatedAt: Date;
};

export const IncomingTimerEntity = new EntitySchema<IncomingTimerRow>({
  name: 'IncomingTimerRow',
  tableName: 'incoming_payment_timers',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    phase: { type: 'string' },
    dueAt: { type: 'Date', nullable: true },
    updatedAt: { type: 'Date' },
  },
});

export const evolveIncomingTimer = (row: IncomingTimerRow | null, recorded: RecordedEvent): IncomingTimerRow | null => {
  const event = recorded as unknown as IncomingPaymentEvent;
  const { transaction } = event.data;
  const { phase, dueAt } = phaseAfter(event);
  return {
    id: transaction.id,
    platformId: transaction.platformId,
    phase,
    dueAt: dueAt === null ? null : new Date(dueAt),
    updatedAt: new Date(transaction.updatedAt),
  };
};

/** Plain SQL for the rows (see transaction-view.rows.ts): one SELECT and one upsert per batch. */
const incomingTimerRows: ProjectionRows<IncomingTimerRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<{ id: string; platform_id: string; phase: IncomingPhase; due_at: Date | null; updated_at: Date }>(
      `SELECT id, platform_id, phase, due_at, updated_at FROM ${sql.schema}.incoming_payment_timers WHERE id = ANY($1::text[])`,
      [keys],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          platformId: row.platform_id,
          phase: row.phase,
          dueAt: row.due_at === null ? null : new Date(row.due_at),
          updatedAt: new Date(row.updated_at),
        },
      ]),
    );
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.incoming_payment_timers (id, platform_id, phase, due_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[])
         ON CONFLICT (id) DO UPDATE
         SET platform_id = EXCLUDED.platform_id, phase = EXCLUDED.phase, due_at = EXCLUDED.due_at, updated_at = EXCLUDED.updated_at`,
        [
          upserts.map((row) => row.id),
          upserts.map((row) => row.platformId),
          upserts.map((row) => row.phase),
          upserts.map((row) => (row.dueAt === null ? null : row.dueAt.toISOString())),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.incoming_payment_timers WHERE id = ANY($1::text[])`, [deletes]);
  },
};

export const incomingTimerProjection: Projection<IncomingTimerRow> = {
  name: 'incoming_payment_timers',
  version: 1,
  canHandle: incomingPaymentEventTypes,
  entity: IncomingTimerEntity,
  keyOf: (event) => String((event.data['transaction'] as { id: string }).id),
  evolve: evolveIncomingTimer,
  rows: incomingTimerRows,
};
