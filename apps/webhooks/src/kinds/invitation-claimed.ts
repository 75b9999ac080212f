import type { WebhookKind } from '../webhook-kind';

// INVITATION.CLAIMED with the UmaInvitation as it was at the claim, carried whole by the payments
// service's events.payments.Invitation.InvitationClaimed (apps/payments/src/invitations). The
// event is recorded under the creating platform, so the webhook goes to it.
export const kind: WebhookKind = {
  name: 'invitation-claimed',
  types: ['INVITATION.CLAIMED'],
  plan(event) {
    if (event.service !== 'payments' || event.aggregate !== 'Invitation' || event.type !== 'InvitationClaimed') return null;
    const invitation = event.data['invitation'];
    if (typeof invitation !== 'object' || invitation === null) return null;
    return { type: 'INVITATION.CLAIMED', resourceId: event.streamId, render: { inline: invitation as Record<string, unknown> } };
  },
  retried: () => true,
};
