import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { InvitationEvent, InvitationView } from './invitation';

/** One row per invitation, keyed by its code; the status shown is computed on read (EXPIRED). */
export type InvitationRow = {
  id: string;
  platformId: string;
  status: string;
  invitation: InvitationView;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
};

export const InvitationEntity = new EntitySchema<InvitationRow>({
  name: 'InvitationRow',
  tableName: 'invitations',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    status: { type: 'string' },
    invitation: { type: 'json' },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

const invitationEvents = ['InvitationCreated', 'InvitationClaimed', 'InvitationCancelled'];

export const evolveInvitationView = (row: InvitationRow | null, recorded: RecordedEvent): InvitationRow | null => {
  const event = recorded as unknown as InvitationEvent;
  if (!invitationEvents.includes(event.type)) return row;
  const { invitation } = event.data;
  return {
    id: invitation.code,
    platformId: invitation.platformId,
    status: invitation.status,
    invitation,
    createdAt: new Date(invitation.createdAt),
    expiresAt: new Date(invitation.expiresAt),
    updatedAt: new Date(invitation.cancelledAt ?? invitation.claimedAt ?? invitation.createdAt),
  };
};

export const invitationViewProjection: Projection<InvitationRow> = {
  name: 'invitations',
  version: 1,
  canHandle: invitationEvents,
  entity: InvitationEntity,
  keyOf: (event) => String((event.data['invitation'] as InvitationView).code),
  evolve: evolveInvitationView,
};
