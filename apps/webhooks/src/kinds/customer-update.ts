import { subjects, type WebhookType } from '@corridor/contracts';
import type { WebhookKind } from '../webhook-kind';

// CUSTOMER.KYC_* for individuals and CUSTOMER.KYB_* for businesses, from the customers service's
// CustomerVerificationStatusChanged (apps/customers/src/customers/customer.ts), with the Customer
// as it was right after the change. UNVERIFIED has no webhook type in the reference. A new
// customer's events carry that Customer as `customer` (decision 0057), so the webhook needs no call
// back; any later change is rendered by asking customers for the customer as of the event.
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
    const type = `CUSTOMER.${family}_${suffix}` as WebhookType;
    const customer = event.data['customer'];
    if (typeof customer === 'object' && customer !== null) {
      return { type, resourceId: event.streamId, render: { inline: customer as Record<string, unknown> } };
    }
    return {
      type,
      resourceId: event.streamId,
      render: {
        subject: subjects.customers.customer.renderAt,
        request: { customerId: event.streamId, streamPosition: event.streamPosition },
      },
    };
  },
  retried: () => true,
};
