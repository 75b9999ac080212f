// The rules of creating a quote: the quote and its PENDING transaction in one event, with the
// exact totals, expiry computed from the command's time, and every refusal naming its field.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { type CreateQuote, createQuote } from './create-quote';
import {
  accountQuoteRequest,
  createQuoteCommand,
  customerId,
  destinationAccountId,
  legsOf,
  platformId,
  quoteId,
  sourceAccountId,
  transactionId,
} from './quote.fixtures';

const spec = deciderSpec<ReturnType<typeof transactionDecider.initialState>, CreateQuote, TransactionEvent>({
  decide: createQuote,
  ...transactionDecider,
});

const refusedWith = (code: string, field: string) => (error: DomainError) => {
  expect(error).toBeInstanceOf(DomainError);
  expect([error.code, error.status, error.details?.['field']]).toEqual([code, 400, field]);
};

const rateDetails = {
  // One mSAT is 65 000 / 10^11 USD = 6.5e-7 USD, or 6.5e-7 / 1.08 EUR = 0.0000601851… EUR cents.
  counterpartyMultiplier: '0.0000601851851852',
  counterpartyFixedFee: '0',
  // One cent is 0.01 / 6.5e-7 = 15 384.6… mSAT, times (1 − 0.003).
  serviceApiMultiplier: '15338.4615385',
  serviceApiFixedFee: '10',
  serviceApiVariableFeeRate: '0.003',
  serviceApiVariableFeeAmount: '300',
};

describe('CreateQuote', () => {
  it('creates the quote and its PENDING transaction, priced to the minor unit, expiring after the TTL', () => {
    // 100 000 − (10 + 300) = 99 690 cents converted at 1 / 1.08 → 92 305.55… → 92 305 EUR cents.
    spec
      .given([])
      .when(createQuoteCommand())
      .then([
        {
          type: 'QuoteCreated',
          data: {
            quote: {
              quoteId,
              transactionId,
              platformId,
              createdAt: '2026-03-01T10:00:00.000Z',
              expiresAt: '2026-03-01T10:05:00.000Z',
              source: { sourceType: 'ACCOUNT', accountId: sourceAccountId },
              destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId },
              lockedCurrencySide: 'SENDING',
              lockedCurrencyAmount: '100000',
              sendingCurrency: 'USD',
              receivingCurrency: 'EUR',
              totalSendingAmount: '100000',
              totalReceivingAmount: '92305',
              feesIncluded: '310',
              exchangeRate: '1.08',
              rateDetails,
            },
            transaction: {
              id: transactionId,
              platformId,
              type: 'OUTGOING',
              status: 'PENDING',
              customerId,
              platformCustomerId: 'crm-42',
              source: { sourceType: 'ACCOUNT', accountId: sourceAccountId, currency: 'USD' },
              destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId, currency: 'EUR' },
              sentAmount: { value: '100000', currency: 'USD' },
              receivedAmount: { value: '92305', currency: 'EUR' },
              exchangeRate: '1.08',
              fees: '310',
              rateDetails,
              quoteId,
              createdAt: '2026-03-01T10:00:00.000Z',
              updatedAt: '2026-03-01T10:00:00.000Z',
            },
          },
        },
      ]);
  });

  it('locks the receiving side: the receiver gets exactly the locked amount', () => {
    const command = createQuoteCommand({
      request: accountQuoteRequest({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: '92305' }),
    });
    const [event] = createQuote(command, transactionDecider.initialState()) as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];
    expect([event.data.quote.totalReceivingAmount, event.data.quote.totalSendingAmount, event.data.quote.feesIncluded]).toEqual([
      '92305',
      '100000',
      '310',
    ]);
  });

  it('names the platform as the customer of its own payment', () => {
    const command = createQuoteCommand({
      source: { sourceType: 'ACCOUNT', accountId: sourceAccountId, currency: 'USD', customerId: null, platformCustomerId: null },
    });
    const [event] = createQuote(command, transactionDecider.initialState()) as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];
    expect([event.data.transaction.customerId, event.data.transaction.platformCustomerId]).toEqual([platformId, platformId]);
  });

  it('gives a real-time funded quote instructions to pay, with a reference of its own', () => {
    const command = createQuoteCommand({
      request: accountQuoteRequest({ source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId } }),
      source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId, platformCustomerId: 'crm-42' },
    });
    const [event] = createQuote(command, transactionDecider.initialState()) as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];
    const [instruction] = event.data.quote.paymentInstructions ?? [];
    expect(instruction?.accountOrWalletInfo).toMatchObject({
      accountType: 'USD_ACCOUNT',
      reference: expect.stringMatching(/^CRD[0-9A-F]{16}$/),
    });
    expect(instruction?.instructionsNotes).toContain('Send exactly 100000 minor units of USD');
    expect(event.data.transaction.source).toEqual({ sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId });
    expect(event.data.transaction.paymentInstructions).toEqual(event.data.quote.paymentInstructions);
  });

  it('funds USDC on the network asked for, and refuses one it cannot receive on', () => {
    const usdc = (cryptoNetwork: string) =>
      createQuoteCommand({
        source: { sourceType: 'REALTIME_FUNDING', currency: 'USDC', customerId: null, platformCustomerId: null, cryptoNetwork },
        legs: legsOf('USDC', 'EUR', [6, 2]),
        sendingLimits: { min: 1_000_000n, max: 10_000_000_000_000n },
        request: accountQuoteRequest({ lockedCurrencyAmount: '5000000' }),
      });
    const [event] = createQuote(usdc('BASE'), transactionDecider.initialState()) as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];
    expect(event.data.quote.paymentInstructions?.map((instruction) => instruction.accountOrWalletInfo.accountType)).toEqual([
      'BASE_WALLET',
    ]);
    spec.given([]).when(usdc('ETHEREUM')).thenThrows(refusedWith('INVALID_INPUT', 'source.cryptoNetwork'));
  });

  it('refuses a quote within one currency, pointing to the transfer endpoints', () =>
    spec
      .given([])
      .when(createQuoteCommand({ destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId, currency: 'USD' } }))
      .thenThrows((error) => {
        refusedWith('INVALID_INPUT', 'destination')(error);
        expect(error.message).toMatch(/\/transfer-in.*\/transfer-out/);
      }));

  it('refuses immediatelyExecute on a REALTIME_FUNDING quote, which executes when its funds arrive', () =>
    spec
      .given([])
      .when(
        createQuoteCommand({
          request: accountQuoteRequest({
            source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId },
            immediatelyExecute: true,
          }),
          source: { sourceType: 'REALTIME_FUNDING', currency: 'USD', customerId, platformCustomerId: 'crm-42' },
        }),
      )
      .thenThrows(refusedWith('INVALID_INPUT', 'immediatelyExecute')));

  it('takes immediatelyExecute on a quote paid from an account (execution/immediate-execution.ts executes it in the same append)', () => {
    const events = createQuote(
      createQuoteCommand({ request: accountQuoteRequest({ immediatelyExecute: true }) }),
      transactionDecider.initialState(),
    );
    expect(events.map((event) => event.type)).toEqual(['QuoteCreated']);
  });

  it('refuses a corridor the rate table does not price', () =>
    spec
      .given([])
      .when(createQuoteCommand({ legs: null }))
      .thenThrows(refusedWith('INVALID_INPUT', 'destination')));

  it.each([
    ['below the least a payment sends', '99'],
    ['above the most a payment sends', '1000000001'],
  ])('refuses a sending amount %s', (_case, amount) =>
    spec
      .given([])
      .when(createQuoteCommand({ request: accountQuoteRequest({ lockedCurrencyAmount: amount }) }))
      .thenThrows(refusedWith('AMOUNT_OUT_OF_RANGE', 'lockedCurrencyAmount')),
  );

  it('refuses a receiving amount that would cost more than the most a payment sends', () =>
    spec
      .given([])
      .when(
        createQuoteCommand({ request: accountQuoteRequest({ lockedCurrencySide: 'RECEIVING', lockedCurrencyAmount: '9000000000000000' }) }),
      )
      .thenThrows(refusedWith('AMOUNT_OUT_OF_RANGE', 'lockedCurrencyAmount')));

  it('refuses an amount the fees take whole', () =>
    spec
      .given([])
      .when(createQuoteCommand({ request: accountQuoteRequest({ lockedCurrencyAmount: '10' }), sendingLimits: { min: 1n, max: 1_000n } }))
      .thenThrows(refusedWith('AMOUNT_OUT_OF_RANGE', 'lockedCurrencyAmount')));

  it('refuses a zero amount', () =>
    spec
      .given([])
      .when(createQuoteCommand({ request: accountQuoteRequest({ lockedCurrencyAmount: '0' }) }))
      .thenThrows(refusedWith('INVALID_INPUT', 'lockedCurrencyAmount')));

  it('never creates a transaction twice under one id', () => {
    const created = createQuote(createQuoteCommand(), transactionDecider.initialState());
    spec
      .given(created)
      .when(createQuoteCommand())
      .thenThrows((error) => expect(error.code).toBe('CONFLICT'));
  });
});
