// Confirming receipt delivery: the given time or the command's, again updates it, the same time twice is a no-op;
// on outgoing payments and transfers (Transaction streams) and on incoming payments (their own streams).
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { createTransfer } from '../transfers/create-transfer';
import { createTransferCommand, transactionId } from '../transfers/transfer.fixtures';
import { snapshotOf } from '../exchange-rates/rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';
import { type IncomingPayment, incomingPaymentDecider, type IncomingPaymentStreamEvent } from '../incoming/incoming-payment';
import { receiveIncomingPayment } from '../incoming/receive-incoming-payment';
import { resolveSandboxSender } from '../incoming/sandbox-sender';
import { parseDecimal } from '../pricing/quote-math';
import { type ConfirmReceipt, confirmIncomingReceipt, confirmReceipt } from './confirm-receipt';
import { type Transaction, type TransactionEvent, transactionDecider } from './transaction';

const spec = deciderSpec<Transaction, ConfirmReceipt, TransactionEvent>({ decide: confirmReceipt, ...transactionDecider });
const created = createTransfer(createTransferCommand(), transactionDecider.initialState());
const confirm = (now: string, receiptDeliveryConfirmedAt?: string): ConfirmReceipt => ({
  type: 'ConfirmReceipt',
  data: { transactionId, ...(receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt } : {}) },
  metadata: { now: new Date(now) },
});
const stateOf = (events: TransactionEvent[]): Transaction => events.reduce(transactionDecider.evolve, transactionDecider.initialState());

describe('ConfirmReceipt', () => {
  it('records the command’s time when none is given', () => {
    const [event] = confirmReceipt(confirm('2026-03-01T12:00:00.000Z'), stateOf(created));
    expect(event).toMatchObject({
      type: 'ReceiptDeliveryConfirmed',
      data: {
        transactionId,
        receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z',
        transaction: { receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z', updatedAt: '2026-03-01T12:00:00.000Z' },
      },
    });
  });

  it('records the given time, normalised, and a later confirmation replaces it', () => {
    const first = confirmReceipt(confirm('2026-03-01T12:00:00.000Z', '2026-03-01T11:00:00Z'), stateOf(created));
    expect(first[0]).toMatchObject({ data: { receiptDeliveryConfirmedAt: '2026-03-01T11:00:00.000Z' } });
    const second = confirmReceipt(confirm('2026-03-01T13:00:00.000Z'), stateOf([...created, ...first]));
    expect(second[0]).toMatchObject({ data: { receiptDeliveryConfirmedAt: '2026-03-01T13:00:00.000Z' } });
  });

  it('does nothing when the same time is confirmed again', () => {
    const first = confirmReceipt(confirm('2026-03-01T12:00:00.000Z', '2026-03-01T11:00:00Z'), stateOf(created));
    spec
      .given([...created, ...first])
      .when(confirm('2026-03-01T14:00:00.000Z', '2026-03-01T11:00:00.000Z'))
      .thenNothingHappened();
  });

  it('refuses an unknown transaction with a 404', () =>
    spec
      .given([])
      .when(confirm('2026-03-01T12:00:00.000Z'))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect([error.code, error.status]).toEqual(['TRANSACTION_NOT_FOUND', 404]);
      }));
});

describe('ConfirmReceipt on an incoming payment (its own stream, issue 22)', () => {
  const incomingId = 'Transaction:0190f000-0000-7000-8000-0000000000a3';
  const snapshot = snapshotOf(sandboxUsdPrices, new Date('2026-03-01T10:00:00.000Z'));
  const receivedEvents = receiveIncomingPayment(
    {
      type: 'ReceiveIncomingPayment',
      data: {
        transactionId: incomingId,
        platformId: 'Platform:0190f000-0000-7000-8000-000000000001',
        customer: { customerId: 'Customer:0190f000-0000-7000-8000-000000000006', platformCustomerId: 'crm-7' },
        sender: resolveSandboxSender('$success.eur@sandbox.uma.money'),
        currency: 'USD',
        depositTargets: {
          defaultExternalAccount: null,
          internalAccounts: [{ id: 'InternalAccount:0190f000-0000-7000-8000-000000000004', currency: 'USD', status: 'ACTIVE' }],
        },
        amount: 1000n,
        fees: { fixedFee: 10n, variableFeeRate: parseDecimal('0.003') },
        msatToReceivingMinor: snapshot.msatToMinor('USD'),
        limits: { min: 100n, max: 1_000_000_000n },
        approvalHook: true,
      },
      metadata: { now: new Date('2026-03-01T10:00:00.000Z'), webhookAnswerSeconds: 60, settleRetrySeconds: 10 },
    },
    incomingPaymentDecider.initialState(),
  );
  const incomingSpec = deciderSpec<IncomingPayment, ConfirmReceipt, IncomingPaymentStreamEvent>({
    decide: confirmIncomingReceipt,
    ...incomingPaymentDecider,
  });
  const confirmIncoming = (now: string, at?: string): ConfirmReceipt => ({
    type: 'ConfirmReceipt',
    data: { transactionId: incomingId, ...(at !== undefined ? { receiptDeliveryConfirmedAt: at } : {}) },
    metadata: { now: new Date(now) },
  });

  it('records the confirmation on the incoming record and leaves its phase alone', () => {
    const before = receivedEvents.reduce<IncomingPayment>(incomingPaymentDecider.evolve, incomingPaymentDecider.initialState());
    const events = confirmIncomingReceipt(confirmIncoming('2026-03-01T12:00:00.000Z'), before);
    expect(events).toMatchObject([
      {
        type: 'ReceiptDeliveryConfirmed',
        data: {
          transactionId: incomingId,
          receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z',
          transaction: { type: 'INCOMING', receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z' },
        },
      },
    ]);
    const after = events.reduce<IncomingPayment>(incomingPaymentDecider.evolve, before);
    expect(after).toMatchObject({
      kind: 'Received',
      phase: before.kind === 'Received' ? before.phase : 'none',
      transaction: { receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z' },
    });
  });

  it('does nothing when the same time is confirmed again', () => {
    const first = confirmIncomingReceipt(
      confirmIncoming('2026-03-01T12:00:00.000Z', '2026-03-01T11:00:00Z'),
      receivedEvents.reduce<IncomingPayment>(incomingPaymentDecider.evolve, incomingPaymentDecider.initialState()),
    );
    incomingSpec
      .given([...receivedEvents, ...first])
      .when(confirmIncoming('2026-03-01T14:00:00.000Z', '2026-03-01T11:00:00.000Z'))
      .thenNothingHappened();
  });
});
