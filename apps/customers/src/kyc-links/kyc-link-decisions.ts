import { type Command, DomainError, type KycLinkDecision, type KycStatus } from '@corridor/contracts';
import type { Customer, CustomerEvent } from '../customers/customer';
import { requireLiveCustomer } from '../customers/update-customer';
import type { DecidedStatus } from '../verifications/verification';

export type IssueKycLink = Command<
  'IssueKycLink',
  { linkId: string; customerId: string; platformId: string; tokenHash: string; expiresAt: string; redirectUri?: string },
  { now: Date }
>;
export type CompleteKycLink = Command<
  'CompleteKycLink',
  { customerId: string; platformId: string; tokenHash: string; decision: KycLinkDecision },
  { now: Date }
>;

/** Unused, unexpired links a customer may have at once; each call makes a new one, so a runaway client is stopped here. */
export const MAX_OPEN_KYC_LINKS = 10;

const isOpen = (link: { usedAt?: string; expiresAt: string }, now: Date): boolean =>
  !link.usedAt && Date.parse(link.expiresAt) > now.getTime();

export const issueKycLink = (command: IssueKycLink, customer: Customer): CustomerEvent[] => {
  const { linkId, customerId, platformId, tokenHash, expiresAt, redirectUri } = command.data;
  const existing = requireLiveCustomer(customer, customerId, platformId);
  if (existing.kycLinks.some((link) => link.linkId === linkId)) return [];
  if (existing.kycLinks.filter((link) => isOpen(link, command.metadata.now)).length >= MAX_OPEN_KYC_LINKS) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Customer ${customerId} already has ${MAX_OPEN_KYC_LINKS} unused KYC links that have not expired; use one of them, or wait until ` +
        `they expire.`,
      {
        openLinks: MAX_OPEN_KYC_LINKS,
      },
    );
  }
  return [
    {
      type: 'KycLinkIssued',
      data: {
        customerId,
        platformId,
        customerType: existing.customerType,
        linkId,
        tokenHash,
        expiresAt,
        ...(redirectUri ? { redirectUri } : {}),
        issuedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};

export const kycLinkNotFound = () =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', 'This KYC link does not exist. Ask the platform for a new one.');

const outcomeOf: Readonly<Record<KycLinkDecision, DecidedStatus & KycStatus>> = { APPROVE: 'APPROVED', REJECT: 'REJECTED' };

/**
 * The hosted flow's outcome (in sandbox, the tester's choice): the link is used up, a verification
 * waiting for an outcome (IN_PROGRESS or PENDING_MANUAL_REVIEW) is decided, and the customer's
 * kycStatus/kybStatus follows, all in one append. A second use is refused: the first one is recorded
 * at the customer's version, so two racing uses cannot both pass.
 */
export const completeKycLink = (command: CompleteKycLink, customer: Customer): CustomerEvent[] => {
  const { customerId, platformId, tokenHash, decision } = command.data;
  const existing = requireLiveCustomer(customer, customerId, platformId);
  const link = existing.kycLinks.find((item) => item.tokenHash === tokenHash);
  if (!link) throw kycLinkNotFound();
  if (link.usedAt)
    throw new DomainError('CONFLICT', 'conflict', 'This KYC link was already used; a link works once. Ask the platform for a new one.', {
      usedAt: link.usedAt,
    });
  const now = command.metadata.now;
  if (Date.parse(link.expiresAt) <= now.getTime()) {
    throw new DomainError('CONFLICT', 'conflict', `This KYC link expired at ${link.expiresAt}. Ask the platform for a new one.`, {
      expiresAt: link.expiresAt,
    });
  }
  const at = now.toISOString();
  const outcome = outcomeOf[decision];
  const events: CustomerEvent[] = [{ type: 'KycLinkUsed', data: { customerId, platformId, linkId: link.linkId, decision, usedAt: at } }];
  const latest = existing.latestVerification;
  const waiting =
    latest && (latest.verificationStatus === 'IN_PROGRESS' || latest.verificationStatus === 'PENDING_MANUAL_REVIEW') ? latest : undefined;
  if (waiting) {
    events.push({
      type: 'VerificationDecided',
      data: {
        customerId,
        platformId,
        verificationId: waiting.verificationId,
        customerType: existing.customerType,
        verificationStatus: outcome,
        errors:
          outcome === 'REJECTED'
            ? [{ resourceId: customerId, type: 'APPLICANT_REJECTED', reason: 'The customer was rejected in the hosted KYC flow' }]
            : [],
        decidedAt: at,
      },
    });
  }
  if (existing.verificationStatus !== outcome) {
    events.push({
      type: 'CustomerVerificationStatusChanged',
      data: {
        customerId,
        platformId,
        customerType: existing.customerType,
        from: existing.verificationStatus,
        to: outcome,
        changedAt: at,
        ...(waiting ? { verificationId: waiting.verificationId } : {}),
      },
    });
  }
  return events;
};
