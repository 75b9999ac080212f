import type { WebhookKind } from '../webhook-kind';

// AGENT_ACTION.PENDING_APPROVAL when an agent submits an action its policy holds for the platform
// (docs/decisions/0016-agents.md). The agents service's events.agents.AgentAction.<EventType>
// carries {action}, the reference AgentAction right after the event, quote or transfer details
// included, so the platform can show the approval without another call. Actions that run at once
// (APPROVED on submit) and later changes (approved, rejected, executed, failed) send nothing: the
// reference has no webhook for them.

export const kind: WebhookKind = {
  name: 'agent-action',
  types: ['AGENT_ACTION.PENDING_APPROVAL'],
  plan(event) {
    if (event.service !== 'agents' || event.aggregate !== 'AgentAction' || event.type !== 'AgentActionSubmitted') return null;
    const action = event.data['action'];
    if (typeof action !== 'object' || action === null || (action as { status?: unknown }).status !== 'PENDING_APPROVAL') return null;
    return { type: 'AGENT_ACTION.PENDING_APPROVAL', resourceId: event.streamId, render: { inline: action as Record<string, unknown> } };
  },
  retried: () => true,
};
