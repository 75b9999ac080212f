// Pins down which agent action events count as an outcome on /metrics.
import { actionOutcomeOf } from './action-outcome';

describe('actionOutcomeOf', () => {
  it.each([
    ['AgentActionExecuted', 'EXECUTED'],
    ['AgentActionFailed', 'FAILED'],
    ['AgentActionRejected', 'REJECTED'],
  ])('counts %s as %s', (type, outcome) => expect(actionOutcomeOf({ type })).toEqual({ kind: 'agent_action', outcome }));

  it('counts nothing for an action still on its way', () => expect(actionOutcomeOf({ type: 'AgentActionApproved' })).toBeNull());
});
