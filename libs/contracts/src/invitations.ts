import type { CurrencyAmountWire } from './money';

// UMA invitations: NATS message data of the payments service and the reference's UmaInvitation.

export type InvitationStatus = 'PENDING' | 'CLAIMED' | 'EXPIRED' | 'CANCELLED';

export type CreateInvitationData = {
  inviterUma: string;
  firstName?: string;
  /** Minor units of the inviter's currency, as a decimal string. */
  amountToSend?: string;
  expiresAt?: string;
};
export type InvitationCodeData = { code: string };
export type ClaimInvitationData = { code: string; inviteeUma: string };

export type InvitationWire = {
  code: string;
  createdAt: string;
  claimedAt?: string;
  url: string;
  expiresAt?: string;
  inviterUma: string;
  inviteeUma?: string;
  status: InvitationStatus;
  firstName?: string;
  amountToSend?: CurrencyAmountWire;
};

/** Data of events.payments.Invitation.InvitationClaimed: the invitation as the webhook shows it. */
export type InvitationClaimedData = { invitation: InvitationWire };
