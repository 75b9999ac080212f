// Opening a transfer: one PENDING transaction with the whole record; the same request again (a
// retry under the same Idempotency-Key) is a no-op; a different request under that key is a 409.
import { DomainError, TRANSFER_AMOUNT_MAX } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { amountToTransfer, type CreateTransfer, createTransfer, type TransferAmountQuestion } from './create-transfer';
import {
  createdAt,
  createTransferCommand,
  customerId,
  externalAccountId,
  internalAccountId,
  platformId,
  transactionId,
  transferTerms,
} from './transfer.fixtures';

const spec = deciderSpec<ReturnType<typeof transactionDecider.initialState>, CreateTransfer, TransactionEvent>({
  decide: createTransfer,
  ...transactionDecider,
});
const opened = (command = createTransferCommand()) => createTransfer(command, transactionDecider.initialState());

describe('CreateTransfer', () => {
  it("records the requesting agent as the transaction's agentId (decision 0016)", () => {
    const command = createTransferCommand();
    const [created] = createTransfer(
      { ...command, data: { ...command.data, agentId: 'Agent:019542f5-b3e7-1d02-0000-000000000001' } },
      transactionDecider.initialState(),
    );
    expect((created?.data as { transaction: { agentId?: string } }).transaction.agentId).toBe('Agent:019542f5-b3e7-1d02-0000-000000000001');
    expect((opened()[0]?.data as { transaction: object }).transaction).not.toHaveProperty('agentId');
  });

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
        expect([error.code, error.status, error.details?.['resourceId']]).toEqual(['CONFLICT', 409, transactionId]);
      }));
});

// What a transfer moves when the request leaves amount out (the reference makes it optional).
describe('the amount a transfer moves', () => {
  const given = (available: bigint, direction: TransferAmountQuestion['direction'] = 'OUT') => ({
    whenAsked: (requested: bigint | undefined) => () =>
      amountToTransfer({ direction, requested, internalAccountId, currency: 'USD', available }),
  });
  const refusal = (ask: () => bigint): DomainError => {
    try {
      ask();
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
    throw new Error(`expected a refusal, got ${ask()}`);
  };

  it('given an explicit amount, moves it as asked whatever is available (the ledger refuses a shortfall when it holds)', () => {
    expect(given(100n).whenAsked(12_550n)()).toBe(12_550n);
    expect(given(0n, 'IN').whenAsked(12_550n)()).toBe(12_550n);
  });

  it('given 7,500 available on the source, a transfer-out without an amount moves all 7,500', () => {
    expect(given(7_500n).whenAsked(undefined)()).toBe(7_500n);
  });

  it('given nothing available, a transfer-out without an amount is a 400 saying how to fund the account, never a zero-amount transfer', () => {
    const error = refusal(given(0n).whenAsked(undefined));
    expect([error.code, error.status, error.details]).toEqual([
      'INVALID_AMOUNT',
      400,
      { field: 'amount', reason: 'NO_AVAILABLE_BALANCE', accountId: internalAccountId, available: '0' },
    ]);
    expect(error.message).toContain('Fund the account first');
  });

  it('given more available than one transfer moves, a transfer-out without an amount asks for one rather than moving part', () => {
    const error = refusal(given(BigInt(TRANSFER_AMOUNT_MAX) + 1n).whenAsked(undefined));
    expect([error.code, error.details?.['reason']]).toEqual(['INVALID_AMOUNT', 'ABOVE_TRANSFER_MAX']);
  });

  it('a transfer-in without an amount is a 400 naming amount: the external balance cannot be seen, so there is no whole balance to pull', () => {
    const error = refusal(given(5_000n, 'IN').whenAsked(undefined));
    expect([error.code, error.status, error.details]).toEqual(['INVALID_INPUT', 400, { field: 'amount' }]);
    expect(error.message).toContain('amount is required on a transfer-in');
  });
});
