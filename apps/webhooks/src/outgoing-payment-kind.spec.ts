// OUTGOING_PAYMENT.* from the payments service's Transaction events: one webhook type per status
// change and refund step, rendered from the event's own transaction; private steps have none.
import type { TransactionRecord } from '@corridor/contracts';
import { type IntegrationEventEnvelope, loadKinds, planWebhook } from './webhook-kind';

const kinds = loadKinds();

const transaction: TransactionRecord = {
  id: 'Transaction:0196f1a0-0000-7000-8000-0000000000aa',
  platformId: 'Platform:p',
  type: 'OUTGOING',
  status: 'FAILED',
  customerId: 'Customer:c',
  platformCustomerId: 'crm-1',
  source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:a', currency: 'USD' },
  destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:e', currency: 'EUR' },
  sentAmount: { value: '10000', currency: 'USD' },
  receivedAmount: { value: '9222', currency: 'EUR' },
  exchangeRate: '1.08',
  fees: '40',
  rateDetails: {
    counterpartyMultiplier: '1',
    counterpartyFixedFee: '0',
    serviceApiMultiplier: '1',
    serviceApiFixedFee: '10',
    serviceApiVariableFeeRate: '0.003',
    serviceApiVariableFeeAmount: '30',
  },
  quoteId: 'Quote:q',
  failureReason: 'QUOTE_EXECUTION_FAILED',
  refund: { reference: 'REFUND-x', initiatedAt: '2026-01-01T00:00:01.000Z', status: 'PENDING', reason: 'TRANSACTION_FAILED' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
};

const event = (type: string, data: Record<string, unknown> = { transaction }): IntegrationEventEnvelope => ({
  service: 'payments',
  aggregate: 'Transaction',
  eventId: '0196f1a0-0000-7000-8000-000000000001',
  type,
  streamId: transaction.id,
  streamPosition: 4,
  occurredAt: '2026-01-01T00:00:01.000Z',
  platformId: 'Platform:p',
  data,
});

describe('the outgoing-payment kind', () => {
  it.each([
    ['QuoteCreated', 'OUTGOING_PAYMENT.PENDING'],
    ['QuoteExpired', 'OUTGOING_PAYMENT.EXPIRED'],
    ['PaymentExecutionStarted', 'OUTGOING_PAYMENT.PROCESSING'],
    ['PaymentCompleted', 'OUTGOING_PAYMENT.COMPLETED'],
    ['PaymentFailed', 'OUTGOING_PAYMENT.FAILED'],
    ['PaymentRefundStarted', 'OUTGOING_PAYMENT.REFUND_PENDING'],
    ['PaymentRefundCompleted', 'OUTGOING_PAYMENT.REFUND_COMPLETED'],
    ['PaymentRefundFailed', 'OUTGOING_PAYMENT.REFUND_FAILED'],
  ])('%s is %s, retried, for the transaction', (type, webhookType) => {
    expect(planWebhook(kinds, event(type))).toMatchObject({ type: webhookType, resourceId: transaction.id, retried: true });
  });

  it('renders the reference OutgoingTransaction from the event alone: JSON numbers, the refund, no platformId', () => {
    const planned = planWebhook(kinds, event('PaymentRefundStarted'));
    expect(planned?.render).toEqual({
      inline: expect.objectContaining({
        id: transaction.id,
        status: 'FAILED',
        sentAmount: expect.objectContaining({ amount: 10_000, currency: expect.objectContaining({ code: 'USD' }) }),
        fees: 40,
        failureReason: 'QUOTE_EXECUTION_FAILED',
        refund: transaction.refund,
      }),
    });
    expect((planned?.render as { inline: Record<string, unknown> }).inline).not.toHaveProperty('platformId');
  });

  it('announces nothing for steps a client does not see, nor for other services’ events', () => {
    expect(planWebhook(kinds, event('PaymentFundsHeld'))).toBeNull();
    expect(planWebhook(kinds, { ...event('PaymentCompleted'), service: 'accounts' })).toBeNull();
    expect(planWebhook(kinds, event('PaymentCompleted', {}))).toBeNull();
  });
});

describe('same-currency transfers', () => {
  const transfer: TransactionRecord = {
    ...transaction,
    status: 'COMPLETED',
    quoteId: undefined,
    failureReason: undefined,
    refund: undefined,
  };

  it.each([
    ['TransferCreated', 'OUTGOING_PAYMENT.PENDING'],
    ['TransferSubmitted', 'OUTGOING_PAYMENT.PROCESSING'],
    ['TransferCompleted', 'OUTGOING_PAYMENT.COMPLETED'],
    ['TransferFailed', 'OUTGOING_PAYMENT.FAILED'],
  ])('a transfer-out %s is %s', (type, webhookType) => {
    expect(planWebhook(kinds, event(type, { transaction: transfer }))).toEqual(
      expect.objectContaining({ type: webhookType, resourceId: transfer.id }),
    );
  });

  it('sends no OUTGOING_PAYMENT webhook for a transfer-in', () => {
    expect(planWebhook(kinds, event('TransferCompleted', { transaction: { ...transfer, type: 'INCOMING' } }))).toBeNull();
  });
});
