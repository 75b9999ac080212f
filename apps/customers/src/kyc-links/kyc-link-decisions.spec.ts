// Pins down the hosted KYC link: issued for a live customer of the platform, bounded in number,
// used once and only before it expires; its outcome decides a verification waiting in
// IN_PROGRESS or PENDING_MANUAL_REVIEW and moves the customer's status in the same append.
import { deciderSpec } from '@corridor/testing';
import { type CustomerEvent, customerDecider } from '../customers/customer';
import { customerId, deleted, individualCreated, later, otherPlatformId, platformId } from '../customers/customer.fixtures';
import { businessCreated } from '../beneficial-owners/beneficial-owner.fixtures';
import { completeKycLink, type CompleteKycLink, issueKycLink, type IssueKycLink, MAX_OPEN_KYC_LINKS } from './kyc-link-decisions';

const linkId = 'KycLink:0196f1a0-0000-7000-8000-0000000000c1';
const tokenHash = 'a'.repeat(64);
const expiresAt = '2026-03-01T12:00:00.000Z';
const verificationId = 'Verification:0196f1a0-0000-7000-8000-0000000000e1';
const at = later.toISOString();

const issueCommand = (overrides: Partial<IssueKycLink['data']> = {}): IssueKycLink => ({
  type: 'IssueKycLink',
  data: { linkId, customerId, platformId, tokenHash, expiresAt, redirectUri: 'https://app.example.com/done', ...overrides },
  metadata: { now: later },
});
const completeCommand = (decision: 'APPROVE' | 'REJECT', now = later): CompleteKycLink => ({
  type: 'CompleteKycLink',
  data: { customerId, platformId, tokenHash, decision },
  metadata: { now },
});

const issued = (id = linkId, hash = tokenHash, expires = expiresAt): CustomerEvent => ({
  type: 'KycLinkIssued',
  data: {
    customerId,
    platformId,
    customerType: 'BUSINESS',
    linkId: id,
    tokenHash: hash,
    expiresAt: expires,
    issuedAt: '2026-03-01T10:50:00.000Z',
  },
});
const used = (): CustomerEvent => ({ type: 'KycLinkUsed', data: { customerId, platformId, linkId, decision: 'APPROVE', usedAt: at } });
const submitted = (verificationStatus: 'IN_PROGRESS' | 'RESOLVE_ERRORS'): CustomerEvent => ({
  type: 'VerificationSubmitted',
  data: {
    customerId,
    platformId,
    verificationId,
    customerType: 'BUSINESS',
    verificationStatus,
    errors: [],
    submittedAt: '2026-03-01T10:55:00.000Z',
  },
});
const manualReview = (): CustomerEvent[] => [
  submitted('IN_PROGRESS'),
  {
    type: 'VerificationDecided',
    data: {
      customerId,
      platformId,
      verificationId,
      customerType: 'BUSINESS',
      verificationStatus: 'PENDING_MANUAL_REVIEW',
      errors: [],
      decidedAt: '2026-03-01T10:56:00.000Z',
    },
  },
  {
    type: 'CustomerVerificationStatusChanged',
    data: {
      customerId,
      platformId,
      customerType: 'BUSINESS',
      from: 'UNVERIFIED',
      to: 'PENDING',
      changedAt: '2026-03-01T10:56:00.000Z',
      verificationId,
    },
  },
];

describe('IssueKycLink', () => {
  const { given } = deciderSpec({ decide: issueKycLink, ...customerDecider });

  it('records the link by the hash of its token, with the customer type the page shows', () =>
    given([businessCreated()])
      .when(issueCommand())
      .then([
        {
          type: 'KycLinkIssued',
          data: {
            customerId,
            platformId,
            customerType: 'BUSINESS',
            linkId,
            tokenHash,
            expiresAt,
            redirectUri: 'https://app.example.com/done',
            issuedAt: at,
          },
        },
      ]));

  it('is 404 for another platform’s customer and 410 for a deleted one', () => {
    given([businessCreated()])
      .when(issueCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 }));
    given([individualCreated(), deleted()])
      .when(issueCommand())
      .thenThrows((error) => expect(error).toMatchObject({ status: 410 }));
  });

  it(`refuses (409) an 11th open link, but counts neither used nor expired ones`, () => {
    const open = Array.from({ length: MAX_OPEN_KYC_LINKS }, (_, index) =>
      issued(`KycLink:0196f1a0-0000-7000-8000-0000000001${String(index).padStart(2, '0')}`, String(index).repeat(64)),
    );
    given([businessCreated(), ...open])
      .when(issueCommand())
      .thenThrows((error) => expect(error).toMatchObject({ code: 'CONFLICT', status: 409 }));
    const stale = Array.from({ length: MAX_OPEN_KYC_LINKS }, (_, index) =>
      issued(
        `KycLink:0196f1a0-0000-7000-8000-0000000002${String(index).padStart(2, '0')}`,
        String(index).repeat(64),
        '2026-03-01T10:00:00.000Z',
      ),
    );
    given([businessCreated(), ...stale])
      .when(issueCommand())
      .then([expect.objectContaining({ type: 'KycLinkIssued' })]);
  });
});

describe('CompleteKycLink', () => {
  const { given } = deciderSpec({ decide: completeKycLink, ...customerDecider });

  it('approving decides a verification in PENDING_MANUAL_REVIEW and approves the business, in one append', () =>
    given([businessCreated(), ...manualReview(), issued()])
      .when(completeCommand('APPROVE'))
      .then([
        { type: 'KycLinkUsed', data: { customerId, platformId, linkId, decision: 'APPROVE', usedAt: at } },
        {
          type: 'VerificationDecided',
          data: {
            customerId,
            platformId,
            verificationId,
            customerType: 'BUSINESS',
            verificationStatus: 'APPROVED',
            errors: [],
            decidedAt: at,
          },
        },
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'BUSINESS', from: 'PENDING', to: 'APPROVED', changedAt: at, verificationId },
        },
      ]));

  it('rejecting without a verification waiting only moves the status, naming no verification', () =>
    given([businessCreated(), submitted('RESOLVE_ERRORS'), issued()])
      .when(completeCommand('REJECT'))
      .then([
        expect.objectContaining({ type: 'KycLinkUsed' }),
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'BUSINESS', from: 'UNVERIFIED', to: 'REJECTED', changedAt: at },
        },
      ]));

  it('a rejected verification carries APPLICANT_REJECTED', () =>
    given([businessCreated(), submitted('IN_PROGRESS'), issued()])
      .when(completeCommand('REJECT'))
      .then([
        expect.objectContaining({ type: 'KycLinkUsed' }),
        expect.objectContaining({
          type: 'VerificationDecided',
          data: expect.objectContaining({
            verificationStatus: 'REJECTED',
            errors: [expect.objectContaining({ type: 'APPLICANT_REJECTED' })],
          }),
        }),
        expect.objectContaining({ type: 'CustomerVerificationStatusChanged' }),
      ]));

  it('refuses a second use (409), however it decides', () =>
    given([businessCreated(), issued(), used()])
      .when(completeCommand('REJECT'))
      .thenThrows((error) =>
        expect(error).toMatchObject({ code: 'CONFLICT', status: 409, message: expect.stringMatching(/already used/) }),
      ));

  it('refuses an expired link (409) and an unknown token (404)', () => {
    given([businessCreated(), issued()])
      .when(completeCommand('APPROVE', new Date(expiresAt)))
      .thenThrows((error) => expect(error).toMatchObject({ status: 409, message: expect.stringMatching(/expired/) }));
    given([businessCreated()])
      .when(completeCommand('APPROVE'))
      .thenThrows((error) => expect(error).toMatchObject({ status: 404 }));
  });
});
