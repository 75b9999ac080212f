import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';
import type { InvitationClaimedData } from '@corridor/contracts';
import { type InvitationView, renderInvitation } from './invitation';

/** events.payments.Invitation.InvitationClaimed, data {invitation: UmaInvitation as of the claim}. */
export const invitationClaimedEvent = (event: RecordedEvent): IntegrationEvent => {
  const invitation = event.data['invitation'] as InvitationView;
  const data: InvitationClaimedData = { invitation: renderInvitation(invitation, new Date(invitation.claimedAt ?? invitation.createdAt)) };
  return integrationEvent('payments', 'Invitation', event, data);
};
