import type { BusinessOutcome, RecordedEvent } from '@corridor/event-store';

const LEDGER_OPERATIONS = new Set(['AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased']);

/** Each movement of money on an internal account, by its kind, for corridor_outcomes_total. */
export const ledgerOutcomeOf = (event: Pick<RecordedEvent, 'type'>): BusinessOutcome | null =>
  LEDGER_OPERATIONS.has(event.type) ? { kind: 'ledger_operation', outcome: event.type } : null;
