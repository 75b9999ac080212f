import type { BusinessOutcome, RecordedEvent } from '@corridor/event-store';

/** A payment reaching a terminal status (COMPLETED, or FAILED with its failureReason), for corridor_outcomes_total. */
export const paymentOutcomeOf = (event: Pick<RecordedEvent, 'type' | 'data'>): BusinessOutcome | null => {
  if (event.type === 'PaymentCompleted') return { kind: 'payment', outcome: 'COMPLETED' };
  if (event.type !== 'PaymentFailed') return null;
  const transaction = (event.data['transaction'] ?? {}) as { failureReason?: unknown };
  return {
    kind: 'payment',
    outcome: 'FAILED',
    reason: typeof transaction.failureReason === 'string' ? transaction.failureReason : 'UNKNOWN',
  };
};
