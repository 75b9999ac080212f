// INCOMING_PAYMENT.* from the payments service's incoming payment events: the approval hook is
// never retried, the others are; outgoing transactions and other events send nothing from here.
import type { IncomingTransactionRecord } from '@corridor/contracts';
import { kind } from './kinds/incoming-payment';
import { type IntegrationEventEnvelope, loadKinds, planWebhook } from './webhook-kind';

const transaction: IncomingTransactionRecord = {
  id: 'Transaction:0196f1a0-0000-7000-8000-0000000000aa',
  platformId: 'Platform:p',
  type: 'INCOMING',
  status: 'PENDING',
  customerId: 'Customer:0196f1a0-0000-7000-8000-0000000000bb',
  platformCustomerId: 'crm-1',
  destination: { destinationType: 'ACCOUNT', accountId: 'InternalAccount:0196f1a0-0000-7000-8000-0000000000cc', currency: 'USD' },
  receivedAmount: { value: '1000', currency: 'USD' },
  fees: '14',
  rateDetails: {
    serviceApiMultiplier: '0.0065',
    serviceApiFixedFee: '10',
    serviceApiVariableFeeRate: '0.003',
    serviceApiVariableFeeAmount: '4',
  },
  counterpartyInformation: { FULL_NAME: 'Sandbox Sender' },
  reconciliationInstructions: { reference: 'UMA-0000000000AA' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const event = (type: string, record: Record<string, unknown> = transaction): IntegrationEventEnvelope => ({
  service: 'payments',
  aggregate: 'Transaction',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type,
  streamId: transaction.id,
  streamPosition: 2,
  occurredAt: '2026-01-01T00:00:00.000Z',
  platformId: 'Platform:p',
  data: { transaction: record },
});

describe('incoming-payment webhooks', () => {
  it.each([
    ['IncomingPaymentPending', 'INCOMING_PAYMENT.PENDING', false],
    ['IncomingPaymentCompleted', 'INCOMING_PAYMENT.COMPLETED', true],
    ['IncomingPaymentFailed', 'INCOMING_PAYMENT.FAILED', true],
    ['IncomingPaymentRejected', 'INCOMING_PAYMENT.FAILED', true],
  ])('%s → %s (retried: %s), the transaction rendered inline', (type, webhook, retried) => {
    const planned = planWebhook(loadKinds(), event(type));
    expect(planned).toMatchObject({ type: webhook, resourceId: transaction.id, retried });
    expect(planned?.render).toEqual({
      inline: expect.objectContaining({
        id: transaction.id,
        type: 'INCOMING',
        receivedAmount: { amount: 1000, currency: expect.objectContaining({ code: 'USD' }) },
        fees: 14,
        requestedReceiverCustomerInfoFields: [],
      }),
    });
  });

  it.each([['IncomingPaymentCreated'], ['IncomingPaymentDeferred'], ['IncomingPaymentApproved']])('%s sends nothing', (type) => {
    expect(kind.plan(event(type))).toBeNull();
  });

  it('ignores outgoing transactions and other services', () => {
    expect(kind.plan(event('IncomingPaymentPending', { ...transaction, type: 'OUTGOING' }))).toBeNull();
    expect(kind.plan({ ...event('IncomingPaymentPending'), service: 'accounts' })).toBeNull();
  });
});
