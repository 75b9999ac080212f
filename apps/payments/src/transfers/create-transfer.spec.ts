// Opening a transfer: the accounts' status, one currency and one owner, a pullable source for a
// transfer-in, then one PENDING transaction with the whole record; the same request again (a
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
  internalAccount,
  internalAccountId,
  platformId,
  transactionId,
  type TransferFactsOverrides,
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
            transfer: { ...transferTerms('OUT'), createdAt },
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
    const [event] = opened(createTransferCommand({ direction: 'IN' }));
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
      .when(createTransferCommand({ requested: 1n }))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect([error.code, error.status, error.details?.['resourceId']]).toEqual(['CONFLICT', 409, transactionId]);
      }));
});

// Who may take part in a transfer, judged over the accounts as their services answer, before
// anything is held; the first rule broken is the one the caller hears.
describe('CreateTransfer: the parties', () => {
  const refused = (overrides: TransferFactsOverrides, code: string, details: Record<string, unknown>) =>
    spec
      .given([])
      .when(createTransferCommand(overrides))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect([error.code, error.status, error.details]).toEqual([code, 400, details]);
      });

  it.each(['PENDING', 'FROZEN', 'CLOSED'] as const)(
    'refuses a transfer-out from a %s internal account, naming source.accountId',
    (status) => refused({ internal: { status } }, 'INVALID_INPUT', { field: 'source.accountId' }),
  );

  it('refuses a transfer-out to an INACTIVE external account and lets a PENDING one receive', () => {
    refused({ external: { status: 'INACTIVE' } }, 'INVALID_INPUT', { field: 'destination.accountId' });
    expect(opened(createTransferCommand({ external: { status: 'PENDING' } }))).toHaveLength(1);
  });

  it('refuses a transfer-in into a CLOSED internal account and lets a FROZEN one receive', () => {
    refused({ direction: 'IN', internal: { status: 'CLOSED' } }, 'INVALID_INPUT', { field: 'destination.accountId' });
    expect(opened(createTransferCommand({ direction: 'IN', internal: { status: 'FROZEN' } }))).toHaveLength(1);
  });

  it('refuses a transfer-in from an INACTIVE external account, naming source.accountId', () =>
    refused({ direction: 'IN', external: { status: 'INACTIVE' } }, 'INVALID_INPUT', { field: 'source.accountId' }));

  it('refuses two currencies with INVALID_CURRENCY on the external account: a transfer moves one currency', () => {
    refused({ external: { currency: 'EUR' } }, 'INVALID_CURRENCY', { field: 'destination.accountId' });
    refused({ direction: 'IN', external: { currency: 'EUR' } }, 'INVALID_CURRENCY', { field: 'source.accountId' });
  });

  it("refuses another owner's external account, and a platform's internal account with a customer's external one", () => {
    refused({ external: { customerId: 'Customer:01950000-0000-7000-8000-0000000000ff' } }, 'INVALID_INPUT', {
      field: 'destination.accountId',
    });
    refused({ direction: 'IN', internal: { customerId: undefined } }, 'INVALID_INPUT', { field: 'source.accountId' });
  });

  it("opens a platform's transfer between its own accounts (neither names a customer)", () =>
    expect(opened(createTransferCommand({ internal: { customerId: undefined }, external: { customerId: undefined } }))).toHaveLength(1));

  it("refuses a transfer-in from an account off the ACH rail, pointing at the internal account's funding instructions", () => {
    const fundingPaymentInstructions = [{ instructionsNotes: 'wire here' }] as never;
    refused(
      { direction: 'IN', internal: { fundingPaymentInstructions }, external: { accountInfo: { paymentRails: ['SEPA'] } } },
      'INVALID_INPUT',
      {
        field: 'source.accountId',
        reason: 'NOT_PULLABLE',
        internalAccountId,
        fundingPaymentInstructions,
      },
    );
  });

  it('judges status before the pair, and the pair before the pull and the amount', () => {
    refused({ internal: { status: 'FROZEN' }, external: { currency: 'EUR' } }, 'INVALID_INPUT', { field: 'source.accountId' });
    refused({ direction: 'IN', external: { currency: 'EUR', accountInfo: {} }, requested: undefined }, 'INVALID_CURRENCY', {
      field: 'source.accountId',
    });
  });

  it('refuses a retry under the same key once the account can no longer take part (the rules come before the stream)', () =>
    spec
      .given(opened())
      .when(createTransferCommand({ internal: { status: 'CLOSED' } }))
      .thenThrows((error) => expect([error.code, error.details]).toEqual(['INVALID_INPUT', { field: 'source.accountId' }])));

  it("names the counterparty as the external account's beneficiary does", () => {
    const [event] = opened(createTransferCommand({ external: { accountInfo: { beneficiary: { fullName: 'Ada Lovelace' } } } }));
    expect((event as Extract<TransactionEvent, { type: 'TransferCreated' }>).data.transaction.counterpartyInformation).toEqual({
      FULL_NAME: 'Ada Lovelace',
    });
  });

  it('a retry of a transfer-out without an amount moves what the first attempt moved, not the balance left now', () => {
    const first = opened(createTransferCommand({ requested: undefined }));
    expect((first[0] as Extract<TransactionEvent, { type: 'TransferCreated' }>).data.transfer.amount).toBe('20000');
    spec
      .given(first)
      .when(
        createTransferCommand({
          requested: undefined,
          earlierAmount: 20_000n,
          internal: { balance: { ...internalAccount().balance, amount: 0 } },
        }),
      )
      .thenNothingHappened();
  });
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

  it(
    'given nothing available, a transfer-out without an amount is a 400 saying how to fund the account, ' + 'never a zero-amount transfer',
    () => {
      const error = refusal(given(0n).whenAsked(undefined));
      expect([error.code, error.status, error.details]).toEqual([
        'INVALID_AMOUNT',
        400,
        { field: 'amount', reason: 'NO_AVAILABLE_BALANCE', accountId: internalAccountId, available: '0' },
      ]);
      expect(error.message).toContain('Fund the account first');
    },
  );

  it('given more available than one transfer moves, a transfer-out without an amount asks for one rather than moving part', () => {
    const error = refusal(given(BigInt(TRANSFER_AMOUNT_MAX) + 1n).whenAsked(undefined));
    expect([error.code, error.details?.['reason']]).toEqual(['INVALID_AMOUNT', 'ABOVE_TRANSFER_MAX']);
  });

  it(
    'a transfer-in without an amount is a 400 naming amount: the external balance cannot be seen, so there is no whole balance to ' +
      'pull',
    () => {
      const error = refusal(given(5_000n, 'IN').whenAsked(undefined));
      expect([error.code, error.status, error.details]).toEqual(['INVALID_INPUT', 400, { field: 'amount' }]);
      expect(error.message).toContain('amount is required on a transfer-in');
    },
  );
});
