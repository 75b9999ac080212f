import type { BusinessOutcome, RecordedEvent } from '@corridor/event-store';

const ENDINGS: Record<string, string> = { AgentActionExecuted: 'EXECUTED', AgentActionFailed: 'FAILED', AgentActionRejected: 'REJECTED' };

/** An agent action reaching its end (executed, failed or rejected), for corridor_outcomes_total. */
export const actionOutcomeOf = (event: Pick<RecordedEvent, 'type'>): BusinessOutcome | null => {
  const outcome = ENDINGS[event.type];
  return outcome ? { kind: 'agent_action', outcome } : null;
};
