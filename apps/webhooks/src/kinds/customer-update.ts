import { subjects, type WebhookType } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// CUSTOMER.KYC_* for individuals and CUSTOMER.KYB_* for businesses, from the customers service's
// CustomerVerificationStatusChanged (apps/customers/src/customers/customer.ts), with the Customer
// as it was right after the change. UNVERIFIED has no webhook type in the reference.
const suffixes: Readonly<Record<string, string>> = { APPROVED: 'APPROVED', REJECTED: 'REJECTED', PENDING: 'PENDING' };

export const kind: WebhookKind = {
  name: 'customer-update',
  types: [
    'CUSTOMER.KYC_APPROVED',
    'CUSTOMER.KYC_REJECTED',
    'CUSTOMER.KYC_PENDING',
    'CUSTOMER.KYB_APPROVED',
    'CUSTOMER.KYB_REJECTED',
    'CUSTOMER.KYB_PENDING',
  ],
  plan(event) {
    if (event.service !== 'customers' || event.type !== 'CustomerVerificationStatusChanged') return null;
    const suffix = suffixes[String(event.data['to'])];
    if (!suffix) return null;
    const family = event.data['customerType'] === 'BUSINESS' ? 'KYB' : 'KYC';
    return {
      type: `CUSTOMER.${family}_${suffix}` as WebhookType,
      resourceId: event.streamId,
      render: {
        subject: subjects.customers.customer.renderAt,
        request: { customerId: event.streamId, streamPosition: event.streamPosition },
      },
    };
  },
  retried: () => true,
};
