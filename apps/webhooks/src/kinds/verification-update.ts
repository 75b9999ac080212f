import { subjects, type WebhookType } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// VERIFICATION.* from the customers service's VerificationSubmitted and VerificationDecided
// (apps/customers/src/verifications/verification.ts), recorded in the customer's stream, with the
// Verification as it was right after the event. The reference's VerificationWebhook has no
// READY_FOR_VERIFICATION type, so that status is not announced.
const announced: ReadonlySet<string> = new Set(['APPROVED', 'REJECTED', 'RESOLVE_ERRORS', 'IN_PROGRESS', 'PENDING_MANUAL_REVIEW']);

export const kind: WebhookKind = {
  name: 'verification-update',
  types: [
    'VERIFICATION.APPROVED',
    'VERIFICATION.REJECTED',
    'VERIFICATION.RESOLVE_ERRORS',
    'VERIFICATION.IN_PROGRESS',
    'VERIFICATION.PENDING_MANUAL_REVIEW',
  ],
  plan(event) {
    if (event.service !== 'customers' || (event.type !== 'VerificationSubmitted' && event.type !== 'VerificationDecided')) return null;
    const status = String(event.data['verificationStatus']);
    const verificationId = event.data['verificationId'];
    if (!announced.has(status) || typeof verificationId !== 'string') return null;
    return {
      type: `VERIFICATION.${status}` as WebhookType,
      resourceId: verificationId,
      render: {
        subject: subjects.customers.verification.renderAt,
        request: { customerId: event.streamId, verificationId, streamPosition: event.streamPosition },
      },
    };
  },
  retried: () => true,
};
