import { type Command, DomainError, type KycStatus } from '@corridor/contracts';
import type { Customer, CustomerEvent } from '../customers/customer';
import { requireLiveCustomer } from '../customers/update-customer';
import { type DecidedStatus, isAwaitingOutcome } from './verification';
import { type DocumentOnFile, verificationErrors } from './verification-requirements';

export type SubmitVerification = Command<
  'SubmitVerification',
  { verificationId: string; customerId: string; platformId: string },
  { now: Date }
>;

/**
 * Opens a verification: RESOLVE_ERRORS with every missing item, or IN_PROGRESS when the customer
 * is complete and goes to the provider. While an earlier one is still with the provider nothing is
 * recorded, and the caller carries on with that one (a retry after a crash lands here too).
 */
export const submitVerification = (command: SubmitVerification, customer: Customer): CustomerEvent[] => {
  const { verificationId, customerId, platformId } = command.data;
  const existing = requireLiveCustomer(customer, customerId, platformId);
  if (existing.latestVerification && isAwaitingOutcome(existing.latestVerification.verificationStatus)) return [];
  // The documents are those recorded in the same stream, as of the version this is decided on (decision 0011).
  const documents: DocumentOnFile[] = (existing.documents ?? []).map((document) => ({
    documentHolder: document.documentHolder,
    documentType: document.metadata.documentType,
  }));
  const errors = verificationErrors(existing, command.metadata.now, documents);
  return [
    {
      type: 'VerificationSubmitted',
      data: {
        customerId,
        platformId,
        verificationId,
        customerType: existing.customerType,
        verificationStatus: errors.length > 0 ? 'RESOLVE_ERRORS' : 'IN_PROGRESS',
        errors,
        submittedAt: command.metadata.now.toISOString(),
      },
    },
  ];
};

export type RecordVerificationOutcome = Command<
  'RecordVerificationOutcome',
  { verificationId: string; customerId: string; platformId: string; outcome: DecidedStatus },
  { now: Date }
>;

const customerStatusOf: Readonly<Record<DecidedStatus, KycStatus>> = {
  APPROVED: 'APPROVED',
  REJECTED: 'REJECTED',
  PENDING_MANUAL_REVIEW: 'PENDING',
};

/** The provider's outcome, and the customer's kycStatus/kybStatus following it in the same commit. */
export const recordVerificationOutcome = (command: RecordVerificationOutcome, customer: Customer): CustomerEvent[] => {
  const { verificationId, customerId, platformId, outcome } = command.data;
  const existing = requireLiveCustomer(customer, customerId, platformId);
  const latest = existing.latestVerification;
  if (latest?.verificationId === verificationId && latest.verificationStatus === outcome) return [];
  if (latest?.verificationId !== verificationId || latest.verificationStatus !== 'IN_PROGRESS') {
    throw new DomainError('CONFLICT', 'conflict', `Verification ${verificationId} is not waiting for an outcome.`);
  }
  const at = command.metadata.now.toISOString();
  const events: CustomerEvent[] = [
    {
      type: 'VerificationDecided',
      data: {
        customerId,
        platformId,
        verificationId,
        customerType: existing.customerType,
        verificationStatus: outcome,
        errors:
          outcome === 'REJECTED'
            ? [{ resourceId: customerId, type: 'APPLICANT_REJECTED', reason: 'The verification provider rejected this customer' }]
            : [],
        decidedAt: at,
      },
    },
  ];
  const to = customerStatusOf[outcome];
  if (to !== existing.verificationStatus) {
    events.push({
      type: 'CustomerVerificationStatusChanged',
      data: {
        customerId,
        platformId,
        customerType: existing.customerType,
        from: existing.verificationStatus,
        to,
        changedAt: at,
        verificationId,
      },
    });
  }
  return events;
};
