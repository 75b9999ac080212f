// Confirming receipt delivery: the given time or the command's, again updates it, the same time twice is a no-op.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { createTransfer } from '../transfers/create-transfer';
import { createTransferCommand, transactionId } from '../transfers/transfer.fixtures';
import { type ConfirmReceipt, confirmReceipt } from './confirm-receipt';
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
      data: { transactionId, receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z', transaction: { receiptDeliveryConfirmedAt: '2026-03-01T12:00:00.000Z', updatedAt: '2026-03-01T12:00:00.000Z' } },
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
    spec.given([...created, ...first]).when(confirm('2026-03-01T14:00:00.000Z', '2026-03-01T11:00:00.000Z')).thenNothingHappened();
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
