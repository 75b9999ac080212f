// A quote citing a lookup delivers within the limits the lookup promised for the receiving
// currency (100 000 USD cents less fees is 92 305 EUR cents in these fixtures).
import { createQuote } from '../quotes/create-quote';
import { accountQuoteRequest, createQuoteCommand } from '../quotes/quote.fixtures';
import { transactionDecider } from '../transactions/transaction';

const decide = (receivingLimits: { min: bigint; max: bigint }, lockedCurrencyAmount = '100000') =>
  createQuote(
    createQuoteCommand({ receivingLimits, request: accountQuoteRequest({ lockedCurrencyAmount }) }),
    transactionDecider.initialState(),
  );

describe('CreateQuote with the receiving limits of a lookup', () => {
  it('quotes an amount the receiver accepts, at either bound', () => {
    expect(decide({ min: 92_305n, max: 92_305n })).toHaveLength(1);
  });

  it.each([
    ['below', { min: 92_306n, max: 1_000_000n }],
    ['above', { min: 100n, max: 92_304n }],
  ])('refuses a receiving amount %s them with 400 AMOUNT_OUT_OF_RANGE naming the bounds', (_case, limits) => {
    expect(() => decide(limits)).toThrow(
      expect.objectContaining({
        code: 'AMOUNT_OUT_OF_RANGE',
        details: expect.objectContaining({
          field: 'lockedCurrencyAmount',
          minReceivingAmount: Number(limits.min),
          maxReceivingAmount: Number(limits.max),
        }),
      }),
    );
  });
});
