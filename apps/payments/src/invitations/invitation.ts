import {
  type Amount,
  type AmountJson,
  type Command,
  DomainError,
  type InvitationStatus,
  type InvitationWire,
  invalidInput,
  requireSameRequest,
  parseAmount,
  serializeAmount,
  toWireAmount,
} from '@corridor/contracts';

// The Invitation aggregate: one stream per invitation, stream id `Invitation:<code>` (the code is
// the invitation's only public id, and appending the first event at version 0 is what makes it
// unique). Every event carries the invitation as it is after the event, so the read model and the
// INVITATION.CLAIMED integration event need nothing else. EXPIRED is never stored: it is PENDING
// past expiresAt, computed when read (renderInvitation) and enforced here with the command's time.

export type InvitationView = {
  code: string;
  /** The platform that created it: it alone may cancel it, and it receives INVITATION.CLAIMED. */
  platformId: string;
  inviterCustomerId: string;
  inviterUma: string;
  url: string;
  status: Exclude<InvitationStatus, 'EXPIRED'>;
  createdAt: string;
  expiresAt: string;
  firstName?: string;
  amountToSend?: AmountJson;
  inviteeUma?: string;
  claimedAt?: string;
  /** The platform whose customer claimed it (another platform may claim: the code is the capability). */
  claimedByPlatformId?: string;
  cancelledAt?: string;
  /** The gateway's fingerprint of the POST that made it, which a retry under its Idempotency-Key must match (not on the wire). */
  requestFingerprint?: string;
};

export type InvitationCreated = { type: 'InvitationCreated'; data: { invitation: InvitationView } };
export type InvitationClaimed = { type: 'InvitationClaimed'; data: { invitation: InvitationView } };
export type InvitationCancelled = { type: 'InvitationCancelled'; data: { invitation: InvitationView } };
export type InvitationEvent = InvitationCreated | InvitationClaimed | InvitationCancelled;

export type Invitation = { kind: 'None' } | { kind: 'Exists'; invitation: InvitationView };

export const invitationStreamId = (code: string): string => `Invitation:${code}`;

export const invitationDecider = {
  initialState: (): Invitation => ({ kind: 'None' }),
  evolve: (_state: Invitation, event: InvitationEvent): Invitation => ({ kind: 'Exists', invitation: event.data.invitation }),
};

/** At most a year ahead; a client asking for longer almost certainly sent the wrong unit. */
const MAX_EXPIRY_MS = 366 * 24 * 3600 * 1000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export type CreateInvitation = Command<
  'CreateInvitation',
  {
    code: string;
    platformId: string;
    url: string;
    inviterUma: string;
    inviterCustomerId: string;
    firstName?: string;
    /** Parsed at the edge (parseMinorUnits); the range is this rule's. */
    amountToSend?: Amount;
    expiresAt?: string;
    /** The request's fingerprint, when it has an Idempotency-Key (its code is then the one the key's claim names). */
    requestFingerprint?: string;
  },
  { now: Date; ttlSeconds: number }
>;
export type ClaimInvitation = Command<'ClaimInvitation', { code: string; inviteeUma: string; platformId: string }, { now: Date }>;
export type CancelInvitation = Command<'CancelInvitation', { code: string; platformId: string }, { now: Date }>;

export const invitationNotFound = (code: string): DomainError =>
  new DomainError('INVITATION_NOT_FOUND', 'not_found', `Invitation ${code.slice(0, 64)} was not found.`, {
    invitationCode: code.slice(0, 64),
  });

export const isExpired = (invitation: InvitationView, now: Date): boolean =>
  invitation.status === 'PENDING' && now.getTime() >= Date.parse(invitation.expiresAt);

/** A random code that names an invitation already (50 random bits drawn twice): the caller draws another. */
export const codeTaken = (code: string): DomainError =>
  new DomainError('CONFLICT', 'conflict', `Invitation ${code} already exists.`, { reason: 'CODE_TAKEN' });

export const createInvitation = (command: CreateInvitation, state: Invitation): InvitationEvent[] => {
  const { code, platformId, url, inviterUma, inviterCustomerId, firstName, amountToSend, expiresAt, requestFingerprint } = command.data;
  const { now, ttlSeconds } = command.metadata;
  if (state.kind !== 'None') {
    // Under an Idempotency-Key the code is the one its claim names: an invitation there is this
    // request again (nothing new) or another request under a used key, a 409 (decision 0028).
    // Without a key the code was drawn at random, so an invitation there is a code drawn twice.
    if (requestFingerprint === undefined || state.invitation.platformId !== platformId) throw codeTaken(code);
    requireSameRequest(state.invitation.requestFingerprint, requestFingerprint, code);
    return [];
  }
  let expiry = new Date(now.getTime() + ttlSeconds * 1000);
  if (expiresAt !== undefined) {
    expiry = new Date(expiresAt);
    if (Number.isNaN(expiry.getTime()))
      throw invalidInput('expiresAt must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z.', { field: 'expiresAt' });
    if (expiry.getTime() <= now.getTime())
      throw invalidInput(`expiresAt must be in the future; it is ${now.toISOString()} now.`, { field: 'expiresAt' });
    if (expiry.getTime() - now.getTime() > MAX_EXPIRY_MS)
      throw invalidInput('expiresAt must be within a year from now.', { field: 'expiresAt' });
  }
  if (amountToSend !== undefined) {
    if (amountToSend.value < 1n || amountToSend.value > MAX_SAFE)
      throw new DomainError(
        'AMOUNT_OUT_OF_RANGE',
        'validation',
        `amountToSend must be a whole number of minor units from 1 to ${MAX_SAFE}.`,
        { field: 'amountToSend' },
      );
  }
  const invitation: InvitationView = {
    code,
    platformId,
    inviterCustomerId,
    inviterUma,
    url,
    status: 'PENDING',
    createdAt: now.toISOString(),
    expiresAt: expiry.toISOString(),
    ...(firstName !== undefined ? { firstName } : {}),
    ...(amountToSend !== undefined ? { amountToSend: serializeAmount(amountToSend) } : {}),
    ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
  };
  return [{ type: 'InvitationCreated', data: { invitation } }];
};

/** Why a PENDING-only operation cannot proceed: already claimed, cancelled or expired (all 400). */
const refuseUnlessPending = (invitation: InvitationView, now: Date, action: string): void => {
  if (invitation.status === 'CLAIMED')
    throw new DomainError(
      'INVITATION_ALREADY_CLAIMED',
      'validation',
      `Invitation ${invitation.code} was already claimed at ${invitation.claimedAt}; it cannot be ${action}.`,
    );
  if (invitation.status === 'CANCELLED')
    throw new DomainError('INVITATION_CANCELLED', 'validation', `Invitation ${invitation.code} was cancelled; it cannot be ${action}.`);
  if (isExpired(invitation, now))
    throw new DomainError(
      'EXPIRED',
      'validation',
      `Invitation ${invitation.code} expired at ${invitation.expiresAt}; it cannot be ${action}.`,
      { expiresAt: invitation.expiresAt },
    );
};

export const claimInvitation = (command: ClaimInvitation, state: Invitation): InvitationEvent[] => {
  const { code, inviteeUma, platformId } = command.data;
  const { now } = command.metadata;
  if (state.kind === 'None') throw invitationNotFound(code);
  const { invitation } = state;
  refuseUnlessPending(invitation, now, 'claimed');
  if (inviteeUma.toLowerCase() === invitation.inviterUma.toLowerCase())
    throw invalidInput('inviteeUma is the inviter’s own address; an invitation is claimed by someone else.', { field: 'inviteeUma' });
  return [
    {
      type: 'InvitationClaimed',
      data: { invitation: { ...invitation, status: 'CLAIMED', inviteeUma, claimedAt: now.toISOString(), claimedByPlatformId: platformId } },
    },
  ];
};

export const cancelInvitation = (command: CancelInvitation, state: Invitation): InvitationEvent[] => {
  const { code, platformId } = command.data;
  const { now } = command.metadata;
  if (state.kind === 'None') throw invitationNotFound(code);
  const { invitation } = state;
  if (invitation.platformId !== platformId)
    throw new DomainError('FORBIDDEN', 'forbidden', `Only the platform that created invitation ${code} can cancel it.`);
  refuseUnlessPending(invitation, now, 'cancelled');
  return [{ type: 'InvitationCancelled', data: { invitation: { ...invitation, status: 'CANCELLED', cancelledAt: now.toISOString() } } }];
};

/** The reference's UmaInvitation as of `now`: a PENDING invitation past its expiry shows EXPIRED. */
export const renderInvitation = (invitation: InvitationView, now: Date): InvitationWire => ({
  code: invitation.code,
  createdAt: invitation.createdAt,
  url: invitation.url,
  expiresAt: invitation.expiresAt,
  inviterUma: invitation.inviterUma,
  status: isExpired(invitation, now) ? 'EXPIRED' : invitation.status,
  ...(invitation.claimedAt !== undefined ? { claimedAt: invitation.claimedAt } : {}),
  ...(invitation.inviteeUma !== undefined ? { inviteeUma: invitation.inviteeUma } : {}),
  ...(invitation.firstName !== undefined ? { firstName: invitation.firstName } : {}),
  ...(invitation.amountToSend !== undefined ? { amountToSend: toWireAmount(parseAmount(invitation.amountToSend)) } : {}),
});
