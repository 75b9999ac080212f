// Pins down which agent events become AGENT_ACTION.PENDING_APPROVAL webhooks (a submitted action
// awaiting approval, with the action as data) and that the payload conforms to the reference.
import { createConformance } from '@corridor/testing';
import type { IntegrationEventEnvelope } from '../webhook-kind';
import { kind } from './agent-action';

const action = {
  id: 'AgentAction:019542f5-b3e7-1d02-0000-000000000099',
  agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000042',
  customerId: 'Customer:019542f5-b3e7-1d02-0000-000000000010',
  platformCustomerId: 'user-a1b2c3',
  status: 'PENDING_APPROVAL',
  type: 'TRANSFER_OUT',
  transferDetails: {
    amount: 50_000,
    currency: 'USD',
    sourceAccountId: 'InternalAccount:019542f5-b3e7-1d02-0000-000000000001',
    destinationAccountId: 'ExternalAccount:019542f5-b3e7-1d02-0000-000000000002',
  },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
};

const event = (overrides: Partial<IntegrationEventEnvelope>): IntegrationEventEnvelope => ({
  service: 'agents',
  aggregate: 'AgentAction',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type: 'AgentActionSubmitted',
  streamId: action.id,
  streamPosition: 1,
  occurredAt: action.createdAt,
  platformId: 'Platform:p',
  data: { action },
  ...overrides,
});

describe('agent-action webhook', () => {
  it('plans AGENT_ACTION.PENDING_APPROVAL for an action submitted pending approval, with the action', () => {
    expect(kind.plan(event({}))).toEqual({ type: 'AGENT_ACTION.PENDING_APPROVAL', resourceId: action.id, render: { inline: action } });
  });

  it('plans nothing for an action that runs at once, for later changes, or for other services', () => {
    expect(kind.plan(event({ data: { action: { ...action, status: 'APPROVED' } } }))).toBeNull();
    for (const type of ['AgentActionApproved', 'AgentActionRejected', 'AgentActionExecuted', 'AgentActionFailed'])
      expect(kind.plan(event({ type }))).toBeNull();
    expect(kind.plan(event({ service: 'payments' }))).toBeNull();
  });

  it('sends a payload the reference AgentActionWebhook accepts', () => {
    const conformance = createConformance();
    const webhook = (data: Record<string, unknown>) => ({
      id: 'Webhook:019542f5-b3e7-1d02-0000-000000000020',
      type: 'AGENT_ACTION.PENDING_APPROVAL',
      timestamp: '2026-03-01T10:00:01Z',
      data,
    });
    expect(() => conformance.checkWebhook(webhook(action))).not.toThrow();
    expect(() => conformance.checkWebhook(webhook({ ...action, status: 'NOT_A_STATUS' }))).toThrow();
  });
});
