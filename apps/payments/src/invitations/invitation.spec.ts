// The rules of an invitation: created PENDING with an expiry (given or the default), claimed once
// by someone other than the inviter, cancelled only by its platform and only while PENDING, and
// EXPIRED past expiresAt on the command's clock — computed, never stored.
import type { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import {
  type CancelInvitation,
  cancelInvitation,
  type ClaimInvitation,
  claimInvitation,
  type CreateInvitation,
  createInvitation,
  type Invitation,
  type InvitationEvent,
  invitationDecider,
  type InvitationView,
  renderInvitation,
} from './invitation';

const platformId = 'Platform:0196f1a0-0000-7000-8000-000000000001';
const otherPlatformId = 'Platform:0196f1a0-0000-7000-8000-000000000002';
const now = new Date('2026-03-01T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

const create = (overrides: Partial<CreateInvitation['data']> = {}, at = now): CreateInvitation => ({
  type: 'CreateInvitation',
  data: {
    code: 'abc123defg',
    platformId,
    url: 'https://uma.me/i/abc123defg',
    inviterUma: '$alice@acme.example',
    inviterCustomerId: 'Customer:c',
    ...overrides,
  },
  metadata: { now: at, ttlSeconds: 3600 },
});
const claim = (at: Date, inviteeUma = '$bob@other.example', by = otherPlatformId): ClaimInvitation => ({
  type: 'ClaimInvitation',
  data: { code: 'abc123defg', inviteeUma, platformId: by },
  metadata: { now: at },
});
const cancel = (at: Date, by = platformId): CancelInvitation => ({
  type: 'CancelInvitation',
  data: { code: 'abc123defg', platformId: by },
  metadata: { now: at },
});

const pending: InvitationView = {
  code: 'abc123defg',
  platformId,
  inviterCustomerId: 'Customer:c',
  inviterUma: '$alice@acme.example',
  url: 'https://uma.me/i/abc123defg',
  status: 'PENDING',
  createdAt: '2026-03-01T10:00:00.000Z',
  expiresAt: '2026-03-01T11:00:00.000Z',
};
const created: InvitationEvent = { type: 'InvitationCreated', data: { invitation: pending } };

const creating = deciderSpec<Invitation, CreateInvitation, InvitationEvent>({ decide: createInvitation, ...invitationDecider });
const claiming = deciderSpec<Invitation, ClaimInvitation, InvitationEvent>({ decide: claimInvitation, ...invitationDecider });
const cancelling = deciderSpec<Invitation, CancelInvitation, InvitationEvent>({ decide: cancelInvitation, ...invitationDecider });
const code = (expected: string) => (error: DomainError) => {
  expect(error.code).toBe(expected);
};

describe('CreateInvitation', () => {
  it('creates it PENDING, expiring after the default lifetime', () => creating.given([]).when(create()).then([created]));

  it('keeps a given expiry, first name and amount', () => {
    const [event] = createInvitation(
      create({ expiresAt: '2026-03-02T00:00:00Z', firstName: 'Bob', amountToSend: { value: 2500n, currency: 'USD' } }),
      invitationDecider.initialState(),
    );
    expect(event?.data.invitation).toMatchObject({
      expiresAt: '2026-03-02T00:00:00.000Z',
      firstName: 'Bob',
      amountToSend: { value: '2500', currency: 'USD' },
    });
  });

  it.each([
    ['now', '2026-03-01T10:00:00.000Z'],
    ['in the past', '2026-02-01T00:00:00Z'],
    ['more than a year ahead', '2027-06-01T00:00:00Z'],
    ['not a date', 'soon'],
  ])('refuses an expiresAt %s', (_case, expiresAt) =>
    creating
      .given([])
      .when(create({ expiresAt }))
      .thenThrows((error) => expect([error.code, error.details?.['field']]).toEqual(['INVALID_INPUT', 'expiresAt'])),
  );

  it('refuses a zero amount', () =>
    creating
      .given([])
      .when(create({ amountToSend: { value: 0n, currency: 'USD' } }))
      .thenThrows(code('AMOUNT_OUT_OF_RANGE')));

  it('never creates one code twice', () =>
    creating
      .given([created])
      .when(create())
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', details: { reason: 'CODE_TAKEN' } })));

  describe('under a used Idempotency-Key (the code is the one the key claimed)', () => {
    const first = 'f1'.repeat(32);
    const createdUnderKey: InvitationEvent = { type: 'InvitationCreated', data: { invitation: { ...pending, requestFingerprint: first } } };
    it('keeps the request’s fingerprint with the invitation', () =>
      creating
        .given([])
        .when(create({ requestFingerprint: first }))
        .then([createdUnderKey]));
    it('does nothing when the same request comes again', () =>
      creating
        .given([createdUnderKey])
        .when(create({ requestFingerprint: first }))
        .thenNothingHappened());
    it('refuses another request under the key with a 409 naming the invitation', () =>
      creating
        .given([createdUnderKey])
        .when(create({ requestFingerprint: 'a2'.repeat(32), firstName: 'Other' }))
        .thenThrows((error) => expect(error).toMatchObject({ status: 409, details: { resourceId: 'abc123defg' } })));
    it('tells a code another platform holds apart from a retry', () =>
      creating
        .given([created])
        .when(create({ platformId: otherPlatformId, requestFingerprint: first }))
        .thenThrows((error) => expect(error).toMatchObject({ details: { reason: 'CODE_TAKEN' } })));
  });
});

describe('ClaimInvitation', () => {
  it('claims a PENDING invitation for the invitee, recording the claiming platform', () =>
    claiming
      .given([created])
      .when(claim(later(60_000)))
      .then([
        {
          type: 'InvitationClaimed',
          data: {
            invitation: {
              ...pending,
              status: 'CLAIMED',
              inviteeUma: '$bob@other.example',
              claimedAt: '2026-03-01T10:01:00.000Z',
              claimedByPlatformId: otherPlatformId,
            },
          },
        },
      ]));

  it('refuses a second claim', () => {
    const [claimed] = claimInvitation(claim(later(1)), { kind: 'Exists', invitation: pending }) as [InvitationEvent];
    claiming
      .given([created, claimed])
      .when(claim(later(2), '$carol@other.example'))
      .thenThrows(code('INVITATION_ALREADY_CLAIMED'));
  });

  it('refuses a cancelled invitation', () => {
    const [cancelled] = cancelInvitation(cancel(later(1)), { kind: 'Exists', invitation: pending }) as [InvitationEvent];
    claiming
      .given([created, cancelled])
      .when(claim(later(2)))
      .thenThrows(code('INVITATION_CANCELLED'));
  });

  it('is claimable until the last millisecond before expiresAt, and EXPIRED from it', () => {
    claiming
      .given([created])
      .when(claim(later(3_599_999)))
      .then([expect.objectContaining({ type: 'InvitationClaimed' })]);
    claiming
      .given([created])
      .when(claim(later(3_600_000)))
      .thenThrows(code('EXPIRED'));
  });

  it('refuses the inviter claiming their own invitation', () =>
    claiming
      .given([created])
      .when(claim(later(1), '$Alice@acme.example'))
      .thenThrows((error) => expect(error.details?.['field']).toBe('inviteeUma')));

  it('answers INVITATION_NOT_FOUND for a code without a stream', () =>
    claiming
      .given([])
      .when(claim(later(1)))
      .thenThrows(code('INVITATION_NOT_FOUND')));
});

describe('CancelInvitation', () => {
  it('cancels a PENDING invitation for its own platform', () =>
    cancelling
      .given([created])
      .when(cancel(later(1_000)))
      .then([
        { type: 'InvitationCancelled', data: { invitation: { ...pending, status: 'CANCELLED', cancelledAt: '2026-03-01T10:00:01.000Z' } } },
      ]));

  it('forbids another platform, even while PENDING', () =>
    cancelling
      .given([created])
      .when(cancel(later(1), otherPlatformId))
      .thenThrows((error) => expect([error.code, error.status]).toEqual(['FORBIDDEN', 403])));

  it('refuses an expired or already cancelled invitation', () => {
    cancelling
      .given([created])
      .when(cancel(later(3_600_000)))
      .thenThrows(code('EXPIRED'));
    const [cancelled] = cancelInvitation(cancel(later(1)), { kind: 'Exists', invitation: pending }) as [InvitationEvent];
    cancelling
      .given([created, cancelled])
      .when(cancel(later(2)))
      .thenThrows(code('INVITATION_CANCELLED'));
  });
});

describe('renderInvitation', () => {
  it('shows a PENDING invitation past its expiry as EXPIRED, and never a claimed one', () => {
    expect(renderInvitation(pending, later(3_599_999)).status).toBe('PENDING');
    expect(renderInvitation(pending, later(3_600_000)).status).toBe('EXPIRED');
    expect(
      renderInvitation(
        { ...pending, status: 'CLAIMED', claimedAt: '2026-03-01T10:30:00.000Z', inviteeUma: '$b@o.example' },
        later(7_200_000),
      ).status,
    ).toBe('CLAIMED');
  });

  it('renders the reference UmaInvitation, the amount with its currency, nothing private', () => {
    const wire = renderInvitation({ ...pending, amountToSend: { value: '2500', currency: 'USD' } }, now);
    expect(wire).toEqual({
      code: 'abc123defg',
      createdAt: pending.createdAt,
      url: pending.url,
      expiresAt: pending.expiresAt,
      inviterUma: pending.inviterUma,
      status: 'PENDING',
      amountToSend: { amount: 2500, currency: { code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 } },
    });
  });
});
