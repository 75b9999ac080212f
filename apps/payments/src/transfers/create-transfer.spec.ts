// Opening a transfer: one PENDING transaction with the whole record; the same request again (a
// retry under the same Idempotency-Key) is a no-op; a different request under that key is a 409.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type CreateTransfer, createTransfer } from './create-transfer';
import { createdAt, createTransferCommand, customerId, externalAccountId, internalAccountId, platformId, transactionId, transferTerms } from './transfer.fixtures';

const spec = deciderSpec<ReturnType<typeof transactionDecider.initialState>, CreateTransfer, TransactionEvent>({ decide: createTransfer, ...transactionDecider });
const opened = (command = createTransferCommand()) => createTransfer(command, transactionDecider.initialState());

describe('CreateTransfer', () => {
  it('opens a transfer-out PENDING: the internal account sends, the external account receives, same amount, no fee, a reference', () =>
    spec
      .given([])
      .when(createTransferCommand())
      .then([
        {
          type: 'TransferCreated',
          data: {
            transfer: { ...transferTerms(), createdAt },
            transaction: {
              id: transactionId,
              platformId,
              type: 'OUTGOING',
              status: 'PENDING',
              customerId,
              platformCustomerId: 'cust-42',
              source: { sourceType: 'ACCOUNT', accountId: internalAccountId, currency: 'USD' },
              destination: { destinationType: 'ACCOUNT', accountId: externalAccountId, currency: 'USD' },
              sentAmount: { value: '12550', currency: 'USD' },
              receivedAmount: { value: '12550', currency: 'USD' },
              exchangeRate: '1',
              fees: '0',
              reconciliationInstructions: { reference: 'CRD-0000000000AA' },
              createdAt,
              updatedAt: createdAt,
            },
          },
        },
      ]));

  it('opens a transfer-in as an INCOMING transaction from the external account into the internal one', () => {
    const [event] = opened(createTransferCommand({ direction: 'IN', fingerprint: 'in' }));
    expect(event?.type).toBe('TransferCreated');
    const transaction = (event as Extract<TransactionEvent, { type: 'TransferCreated' }>).data.transaction;
    expect([transaction.type, transaction.source, transaction.destination]).toEqual([
      'INCOMING',
      { sourceType: 'ACCOUNT', accountId: externalAccountId, currency: 'USD' },
      { destinationType: 'ACCOUNT', accountId: internalAccountId, currency: 'USD' },
    ]);
  });

  it('does nothing for the same request again (a retry or its racing twin under the same key)', () =>
    spec.given(opened()).when(createTransferCommand({}, '2026-03-01T10:00:09.000Z')).thenNothingHappened());

  it('refuses a different request under the same key with a 409, naming the transfer it created', () =>
    spec
      .given(opened())
      .when(createTransferCommand({ amount: '1', fingerprint: 'another' }))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect([error.code, error.status, error.details?.['transactionId']]).toEqual(['CONFLICT', 409, transactionId]);
      }));
});
