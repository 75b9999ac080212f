// The rules of an incoming payment, given/when/then: its price, the approval hook's answers, the
// platform's approve and reject inside (and outside) the window, the timers, and the settlement.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { snapshotOf } from '../exchange-rates/rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';
import { parseDecimal } from '../pricing/quote-math';
import {
  type AnswerIncomingApproval,
  answerIncomingApproval,
  type DecideIncomingPayment,
  decideIncomingPayment,
  type ExpireIncomingApproval,
  expireIncomingApproval,
  type SettleIncomingPayment,
  settleIncomingPayment,
} from './incoming-approval';
import { type IncomingPayment, type IncomingPaymentEvent, incomingPaymentDecider } from './incoming-payment';
import { type ReceiveIncomingPayment, receiveIncomingPayment } from './receive-incoming-payment';
import { resolveSandboxSender } from './sandbox-sender';

const platformId = 'Platform:0190f000-0000-7000-8000-000000000001';
const transactionId = 'Transaction:0190f000-0000-7000-8000-0000000000a3';
const accountId = 'InternalAccount:0190f000-0000-7000-8000-000000000004';
const customerId = 'Customer:0190f000-0000-7000-8000-000000000006';
const now = new Date('2026-03-01T10:00:00.000Z');
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000);
const snapshot = snapshotOf(sandboxUsdPrices, now);

const receiveCommand = (overrides: Partial<ReceiveIncomingPayment['data']> = {}): ReceiveIncomingPayment => ({
  type: 'ReceiveIncomingPayment',
  data: {
    transactionId,
    platformId,
    customer: { customerId, platformCustomerId: 'crm-7' },
    sender: resolveSandboxSender('$success.eur@sandbox.uma.money'),
    currency: 'USD',
    depositTargets: { defaultExternalAccount: null, internalAccounts: [{ id: accountId, currency: 'USD', status: 'ACTIVE' }] },
    amount: 1000n,
    fees: { fixedFee: 10n, variableFeeRate: parseDecimal('0.003') },
    msatToReceivingMinor: snapshot.msatToMinor('USD'),
    limits: { min: 100n, max: 1_000_000_000n },
    approvalHook: true,
    ...overrides,
  },
  metadata: { now, webhookAnswerSeconds: 60, settleRetrySeconds: 10 },
});

const received = receiveIncomingPayment(receiveCommand(), incomingPaymentDecider.initialState());
const [createdEvent, pendingEvent] = received as [
  Extract<IncomingPaymentEvent, { type: 'IncomingPaymentCreated' }>,
  Extract<IncomingPaymentEvent, { type: 'IncomingPaymentPending' }>,
];
const pendingTx = pendingEvent.data.transaction;
const timings = (at: Date) => ({ now: at, approvalWindowSeconds: 5, settleRetrySeconds: 10 });
const answer = (statusCode: number | undefined, body?: unknown, at = later(1)): AnswerIncomingApproval => ({
  type: 'AnswerIncomingApproval',
  data: {
    transactionId,
    platformId,
    ...(statusCode !== undefined ? { statusCode } : { error: 'ECONNREFUSED' }),
    ...(body !== undefined ? { responseBody: JSON.stringify(body) } : {}),
  },
  metadata: timings(at),
});
const fold = (events: IncomingPaymentEvent[]): IncomingPayment =>
  events.reduce(incomingPaymentDecider.evolve, incomingPaymentDecider.initialState());
const deferred = [...received, ...answerIncomingApproval(answer(202), fold(received))];

describe('ReceiveIncomingPayment', () => {
  const spec = deciderSpec<IncomingPayment, ReceiveIncomingPayment, IncomingPaymentEvent>({
    decide: receiveIncomingPayment,
    ...incomingPaymentDecider,
  });

  it('is CREATED, then PENDING with reconciliation instructions; fees in the receiving currency on top of the amount received', () => {
    expect(createdEvent.data.transaction).toMatchObject({
      status: 'CREATED',
      type: 'INCOMING',
      receivedAmount: { value: '1000', currency: 'USD' },
      fees: '14',
    });
    expect(createdEvent.data.transaction.reconciliationInstructions).toBeUndefined();
    // G = ceil(1010 / 0.997) = 1014; V = ceil(1014 × 0.003) = 4; G − 14 = 1000.
    expect(createdEvent.data.grossAmount).toBe('1014');
    expect(pendingTx).toMatchObject({ status: 'PENDING', reconciliationInstructions: { reference: 'UMA-0000000000A3' } });
    expect(pendingTx.rateDetails).toMatchObject({
      serviceApiFixedFee: '10',
      serviceApiVariableFeeRate: '0.003',
      serviceApiVariableFeeAmount: '4',
    });
    expect(Number(pendingTx.rateDetails.serviceApiMultiplier)).toBeGreaterThan(0);
    expect(pendingTx.counterpartyInformation).toEqual({ FULL_NAME: 'Sandbox Sender', BIRTH_DATE: '1985-06-15', NATIONALITY: 'US' });
    expect(pendingEvent.data.webhookAnswerDueAt).toBe('2026-03-01T10:01:00.000Z');
  });

  it.each([
    [99n, 'below'],
    [1_000_000_001n, 'above'],
  ])('refuses %s minor units (%s the limits) with AMOUNT_OUT_OF_RANGE', (amount) =>
    spec
      .given([])
      .when(receiveCommand({ amount }))
      .thenThrows((error) => {
        expect([error.code, error.status, error.details?.['field']]).toEqual(['AMOUNT_OUT_OF_RANGE', 400, 'receivingCurrencyAmount']);
      }),
  );

  it('refuses a currency no rate prices', () =>
    spec
      .given([])
      .when(receiveCommand({ msatToReceivingMinor: null }))
      .thenThrows((error) => expect(error.code).toBe('INVALID_CURRENCY')));

  it('refuses a transaction id already used', () =>
    spec
      .given(received)
      .when(receiveCommand())
      .thenThrows((error) => expect(error.status).toBe(409)));

  it('approves at once, with nobody to ask, when the platform has no webhook endpoint: PENDING then PROCESSING (approvedBy AUTO)', () =>
    spec
      .given([])
      .when(receiveCommand({ approvalHook: false }))
      .then([
        createdEvent,
        pendingEvent,
        {
          type: 'IncomingPaymentApproved',
          data: { transaction: { ...pendingTx, status: 'PROCESSING' }, approvedBy: 'AUTO', settleDueAt: '2026-03-01T10:00:10.000Z' },
        },
      ]));
});

describe('AnswerIncomingApproval (the approval hook)', () => {
  const spec = deciderSpec<IncomingPayment, AnswerIncomingApproval, IncomingPaymentEvent>({
    decide: answerIncomingApproval,
    ...incomingPaymentDecider,
  });

  it('200 approves: PROCESSING, with the receiver data kept', () =>
    spec
      .given(received)
      .when(answer(200, { receiverCustomerInfo: { FULL_NAME: 'Payee' } }))
      .then([
        {
          type: 'IncomingPaymentApproved',
          data: {
            transaction: { ...pendingTx, status: 'PROCESSING', updatedAt: '2026-03-01T10:00:01.000Z' },
            approvedBy: 'WEBHOOK',
            receiverCustomerInfo: { FULL_NAME: 'Payee' },
            settleDueAt: '2026-03-01T10:00:11.000Z',
          },
        },
      ]));

  it('403 rejects, keeping the reason', () =>
    spec
      .given(received)
      .when(answer(403, { code: 'FORBIDDEN', reason: 'RESTRICTED_JURISDICTION' }))
      .then([
        {
          type: 'IncomingPaymentRejected',
          data: {
            transaction: { ...pendingTx, status: 'REJECTED', updatedAt: '2026-03-01T10:00:01.000Z' },
            rejectedBy: 'WEBHOOK',
            reason: 'RESTRICTED_JURISDICTION',
          },
        },
      ]));

  it('202 defers for the approval window', () =>
    spec
      .given(received)
      .when(answer(202))
      .then([
        {
          type: 'IncomingPaymentDeferred',
          data: {
            transaction: { ...pendingTx, updatedAt: '2026-03-01T10:00:01.000Z' },
            answer: 202,
            approvalDueAt: '2026-03-01T10:00:06.000Z',
          },
        },
      ]));

  it('422 for fields the sender has: they join counterpartyInformation and the platform decides in the window', () =>
    spec
      .given(received)
      .when(answer(422, { requiredFields: ['TAX_ID', 'EMAIL'] }))
      .then([
        {
          type: 'IncomingPaymentDeferred',
          data: {
            transaction: {
              ...pendingTx,
              counterpartyInformation: { ...pendingTx.counterpartyInformation, TAX_ID: '123-45-6789', EMAIL: 'sender@sandbox.uma.money' },
              updatedAt: '2026-03-01T10:00:01.000Z',
            },
            answer: 422,
            requiredFields: ['TAX_ID', 'EMAIL'],
            approvalDueAt: '2026-03-01T10:00:06.000Z',
          },
        },
      ]));

  it.each([
    ['a field the sender lacks', { requiredFields: ['REGISTRATION_NUMBER'] }],
    ['no fields at all', { code: 'X' }],
  ])('422 naming %s fails MISSING_MANDATORY_PAYEE_DATA', (_what, body) => {
    const [event] = answerIncomingApproval(answer(422, body), fold(received));
    expect(event).toMatchObject({
      type: 'IncomingPaymentFailed',
      data: { transaction: { status: 'FAILED', failureReason: 'MISSING_MANDATORY_PAYEE_DATA' } },
    });
  });

  it.each([[500], [404], [301], [undefined]])('answer %s fails PAYMENT_APPROVAL_WEBHOOK_ERROR', (status) => {
    const [event] = answerIncomingApproval(answer(status), fold(received));
    expect(event).toMatchObject({
      type: 'IncomingPaymentFailed',
      data: { transaction: { status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' } },
    });
  });

  it('a hook that found no endpoint (cleared since the payment arrived) approves: nobody can answer it', () =>
    spec
      .given(received)
      .when({ ...answer(undefined), data: { transactionId, platformId, error: 'No webhookEndpoint.', noEndpoint: true } })
      .then([
        {
          type: 'IncomingPaymentApproved',
          data: {
            transaction: { ...pendingTx, status: 'PROCESSING', updatedAt: '2026-03-01T10:00:01.000Z' },
            approvedBy: 'AUTO',
            settleDueAt: '2026-03-01T10:00:11.000Z',
          },
        },
      ]));

  it('only the first answer counts', () => spec.given(deferred).when(answer(200)).thenNothingHappened());
  it('a report of no endpoint after the first answer changes nothing', () =>
    spec
      .given(deferred)
      .when({ ...answer(undefined), data: { transactionId, platformId, noEndpoint: true } })
      .thenNothingHappened());

  it('another platform’s report finds no payment', () =>
    spec
      .given(received)
      .when({ ...answer(200), data: { ...answer(200).data, platformId: 'Platform:other' } })
      .thenThrows((error) => expect(error).toBeInstanceOf(DomainError)));
});

describe('DecideIncomingPayment (approve / reject)', () => {
  const spec = deciderSpec<IncomingPayment, DecideIncomingPayment, IncomingPaymentEvent>({
    decide: decideIncomingPayment,
    ...incomingPaymentDecider,
  });
  const decide = (decision: 'APPROVE' | 'REJECT', at: Date, platform = platformId): DecideIncomingPayment => ({
    type: 'DecideIncomingPayment',
    data: { transactionId, platformId: platform, decision, ...(decision === 'REJECT' ? { reason: 'NO' } : {}) },
    metadata: timings(at),
  });
  const isNotPending = (error: DomainError) =>
    expect([error.code, error.status]).toEqual(['TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL', 409]);

  it('approves a deferred payment within the window', () => {
    const [event] = decideIncomingPayment(decide('APPROVE', later(5.999)), fold(deferred));
    expect(event).toMatchObject({
      type: 'IncomingPaymentApproved',
      data: { approvedBy: 'PLATFORM', transaction: { status: 'PROCESSING' } },
    });
  });

  it('rejects a deferred payment within the window', () => {
    const [event] = decideIncomingPayment(decide('REJECT', later(2)), fold(deferred));
    expect(event).toMatchObject({
      type: 'IncomingPaymentRejected',
      data: { rejectedBy: 'PLATFORM', reason: 'NO', transaction: { status: 'REJECTED' } },
    });
  });

  it('refuses once the window has passed', () =>
    spec
      .given(deferred)
      .when(decide('APPROVE', later(6)))
      .thenThrows(isNotPending));
  it('refuses before the hook was answered', () =>
    spec
      .given(received)
      .when(decide('APPROVE', later(1)))
      .thenThrows(isNotPending));
  it('refuses a payment already approved', () => {
    const approved = [...deferred, ...decideIncomingPayment(decide('APPROVE', later(2)), fold(deferred))];
    spec
      .given(approved)
      .when(decide('REJECT', later(3)))
      .thenThrows(isNotPending);
  });
  it('answers 404 to another platform', () =>
    spec
      .given(deferred)
      .when(decide('APPROVE', later(2), 'Platform:other'))
      .thenThrows((error) => expect(error.status).toBe(404)));
});

describe('ExpireIncomingApproval (the timers)', () => {
  const spec = deciderSpec<IncomingPayment, ExpireIncomingApproval, IncomingPaymentEvent>({
    decide: expireIncomingApproval,
    ...incomingPaymentDecider,
  });
  const at = (when: Date): ExpireIncomingApproval => ({ type: 'ExpireIncomingApproval', data: { transactionId }, metadata: { now: when } });

  it('fails a deferred payment PAYMENT_APPROVAL_TIMED_OUT at the end of its window, not before', () => {
    spec
      .given(deferred)
      .when(at(later(5.999)))
      .thenNothingHappened();
    const [event] = expireIncomingApproval(at(later(6)), fold(deferred));
    expect(event).toMatchObject({
      type: 'IncomingPaymentFailed',
      data: { transaction: { status: 'FAILED', failureReason: 'PAYMENT_APPROVAL_TIMED_OUT' } },
    });
  });

  it('fails an unanswered hook PAYMENT_APPROVAL_WEBHOOK_ERROR at its deadline', () => {
    spec
      .given(received)
      .when(at(later(59)))
      .thenNothingHappened();
    const [event] = expireIncomingApproval(at(later(60)), fold(received));
    expect(event).toMatchObject({ data: { transaction: { failureReason: 'PAYMENT_APPROVAL_WEBHOOK_ERROR' } } });
  });

  it('does nothing to a finished payment', () => {
    const failed = [...deferred, ...expireIncomingApproval(at(later(6)), fold(deferred))];
    spec
      .given(failed)
      .when(at(later(100)))
      .thenNothingHappened();
  });
});

describe('SettleIncomingPayment', () => {
  const spec = deciderSpec<IncomingPayment, SettleIncomingPayment, IncomingPaymentEvent>({
    decide: settleIncomingPayment,
    ...incomingPaymentDecider,
  });
  const approved = [...received, ...answerIncomingApproval(answer(200), fold(received))];
  const settle = (outcome: 'DEPOSITED' | 'REFUSED'): SettleIncomingPayment => ({
    type: 'SettleIncomingPayment',
    data: { transactionId, outcome, detail: 'closed' },
    metadata: { now: later(2) },
  });

  it('completes a deposited payment with settledAt', () => {
    const [event] = settleIncomingPayment(settle('DEPOSITED'), fold(approved));
    expect(event).toMatchObject({
      type: 'IncomingPaymentCompleted',
      data: { transaction: { status: 'COMPLETED', settledAt: '2026-03-01T10:00:02.000Z' } },
    });
  });

  it('refunds a refused deposit: REFUNDED with OFFRAMP_FAILED, and the payment is done', () => {
    const [event] = settleIncomingPayment(settle('REFUSED'), fold(approved));
    expect(event).toMatchObject({
      type: 'IncomingPaymentRefunded',
      data: { transaction: { status: 'REFUNDED', failureReason: 'OFFRAMP_FAILED' } },
    });
    spec
      .given([...approved, event as IncomingPaymentEvent])
      .when(settle('REFUSED'))
      .thenNothingHappened();
  });

  it('does nothing twice, nor to a payment not yet approved', () => {
    const completed = [...approved, ...settleIncomingPayment(settle('DEPOSITED'), fold(approved))];
    spec.given(completed).when(settle('DEPOSITED')).thenNothingHappened();
    spec.given(received).when(settle('DEPOSITED')).thenNothingHappened();
  });
});

describe('sandbox senders', () => {
  it.each([
    ['alice@example.com', 'INVALID_UMA_ADDRESS'],
    ['$alice@example.com', 'SENDER_NOT_ACCEPTED'],
    ['$fail.compliance.usd@sandbox.uma.money', 'SENDER_NOT_ACCEPTED'],
    ['$non.existent.usd@sandbox.uma.money', 'SENDER_NOT_ACCEPTED'],
    ['$success.xyz@sandbox.uma.money', 'SENDER_NOT_ACCEPTED'],
  ])('refuses %s with %s', (address, code) => {
    expect(() => resolveSandboxSender(address)).toThrow(expect.objectContaining({ code }));
  });

  it('takes the currency from the address', () =>
    expect(resolveSandboxSender('$pending.long.mxn@sandbox.uma.money')).toMatchObject({ currency: 'MXN' }));
});
