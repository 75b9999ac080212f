import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import { type ActionView, renderAction, upcastAction } from './actions/action';
import { actionEventTypes } from './actions/action';

// Every change of an agent action leaves as events.agents.AgentAction.<EventType> with {action}:
// the reference AgentAction right after the event (the AGENT_ACTION.PENDING_APPROVAL webhook
// needs nothing else). Agent events stay private: they carry the token hash and the platform
// learns of its agents from its own requests.
const published = new Set<string>(actionEventTypes);

export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null =>
  published.has(event.type)
    ? integrationEvent('agents', 'AgentAction', event, { action: renderAction(upcastAction(event.data['action'] as ActionView)) })
    : null;
