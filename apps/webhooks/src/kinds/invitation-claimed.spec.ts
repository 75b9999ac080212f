import type { IntegrationEventEnvelope } from '../webhook-kind';
import { kind } from './invitation-claimed';

const event = (overrides: Partial<IntegrationEventEnvelope>): IntegrationEventEnvelope => ({
  service: 'payments',
  aggregate: 'Invitation',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type: 'InvitationClaimed',
  streamId: 'Invitation:abc123defg',
  streamPosition: 2,
  occurredAt: '2026-01-01T00:00:00.000Z',
  platformId: 'Platform:p',
  data: { invitation: { code: 'abc123defg', status: 'CLAIMED' } },
  ...overrides,
});

describe('invitation-claimed', () => {
  it('plans INVITATION.CLAIMED with the invitation the event carries', () => {
    expect(kind.plan(event({}))).toEqual({
      type: 'INVITATION.CLAIMED',
      resourceId: 'Invitation:abc123defg',
      render: { inline: { code: 'abc123defg', status: 'CLAIMED' } },
    });
  });

  it('plans nothing for creation, cancellation or other services', () => {
    expect(kind.plan(event({ type: 'InvitationCreated' }))).toBeNull();
    expect(kind.plan(event({ type: 'InvitationCancelled' }))).toBeNull();
    expect(kind.plan(event({ service: 'customers' }))).toBeNull();
  });
});
