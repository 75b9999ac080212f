import type { CustomerType, Event, VerificationErrorWire, VerificationStatus } from '@corridor/contracts';

// A verification is one submission of a customer for KYC (individuals) or KYB (businesses). It is
// recorded in the customer's stream (docs/decisions/0007), so the errors it lists are computed
// from exactly the customer and owners the append was decided on, and the customer's status
// changes in the same commit as the decision that causes it.

/** Submitted: RESOLVE_ERRORS when something is missing, else IN_PROGRESS (handed to the provider). */
export type VerificationSubmitted = Event<
  'VerificationSubmitted',
  {
    customerId: string;
    platformId: string;
    verificationId: string;
    customerType: CustomerType;
    verificationStatus: 'RESOLVE_ERRORS' | 'IN_PROGRESS';
    errors: VerificationErrorWire[];
    submittedAt: string;
  }
>;
/** The provider's outcome for an IN_PROGRESS verification. */
export type VerificationDecided = Event<
  'VerificationDecided',
  {
    customerId: string;
    platformId: string;
    verificationId: string;
    customerType: CustomerType;
    verificationStatus: DecidedStatus;
    errors: VerificationErrorWire[];
    decidedAt: string;
  }
>;
export type VerificationEvent = VerificationSubmitted | VerificationDecided;
export type DecidedStatus = 'APPROVED' | 'REJECTED' | 'PENDING_MANUAL_REVIEW';

export const verificationEventTypes: readonly VerificationEvent['type'][] = ['VerificationSubmitted', 'VerificationDecided'];

/** What the customer aggregate keeps of its verifications: enough to refuse a second one in flight. */
export type VerificationSummary = { verificationId: string; verificationStatus: VerificationStatus };

/**
 * A verification the provider is still working on; submitting again returns it rather than start
 * a second one. PENDING_MANUAL_REVIEW is an outcome (the customer shows PENDING): a platform that
 * has changed the details may submit again.
 */
export const isAwaitingOutcome = (status: VerificationStatus): boolean => status === 'IN_PROGRESS' || status === 'READY_FOR_VERIFICATION';
