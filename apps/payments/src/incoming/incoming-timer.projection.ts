import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
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
  return { id: transaction.id, platformId: transaction.platformId, phase, dueAt: dueAt === null ? null : new Date(dueAt), updatedAt: new Date(transaction.updatedAt) };
};

export const incomingTimerProjection: Projection<IncomingTimerRow> = {
  name: 'incoming_payment_timers',
  version: 1,
  canHandle: incomingPaymentEventTypes,
  entity: IncomingTimerEntity,
  keyOf: (event) => String((event.data['transaction'] as { id: string }).id),
  evolve: evolveIncomingTimer,
};
