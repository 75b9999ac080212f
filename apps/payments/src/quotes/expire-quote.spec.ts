// When a quote expires: not before its expiresAt, exactly once, and never once it left PENDING.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type TransactionEvent, transactionDecider } from '../transactions/transaction';
import { createQuote } from './create-quote';
import { type ExpireQuote, expireQuote } from './expire-quote';
import { createQuoteCommand, quoteId, transactionId } from './quote.fixtures';

const spec = deciderSpec<ReturnType<typeof transactionDecider.initialState>, ExpireQuote, TransactionEvent>({
  decide: expireQuote,
  ...transactionDecider,
});
const created = createQuote(createQuoteCommand(), transactionDecider.initialState());
const at = (iso: string): ExpireQuote => ({ type: 'ExpireQuote', data: { transactionId }, metadata: { now: new Date(iso) } });

describe('ExpireQuote', () => {
  it('expires the quote at its expiresAt: the transaction ends EXPIRED with failureReason QUOTE_EXPIRED', () => {
    const [quoteCreated] = created as [Extract<TransactionEvent, { type: 'QuoteCreated' }>];
    spec
      .given(created)
      .when(at('2026-03-01T10:05:00.000Z'))
      .then([
        {
          type: 'QuoteExpired',
          data: {
            quoteId,
            transactionId,
            expiredAt: '2026-03-01T10:05:00.000Z',
            transaction: {
              ...quoteCreated.data.transaction,
              status: 'EXPIRED',
              failureReason: 'QUOTE_EXPIRED',
              updatedAt: '2026-03-01T10:05:00.000Z',
            },
          },
        },
      ]);
  });

  it('does nothing a millisecond before expiry', () => spec.given(created).when(at('2026-03-01T10:04:59.999Z')).thenNothingHappened());

  it('does nothing to a quote already expired', () => {
    const expired = expireQuote(
      at('2026-03-01T10:06:00.000Z'),
      created.reduce(transactionDecider.evolve, transactionDecider.initialState()),
    );
    spec
      .given([...created, ...expired])
      .when(at('2026-03-01T10:07:00.000Z'))
      .thenNothingHappened();
  });

  it('refuses an unknown transaction', () =>
    spec
      .given([])
      .when(at('2026-03-01T10:05:00.000Z'))
      .thenThrows((error) => {
        expect(error).toBeInstanceOf(DomainError);
        expect([error.code, error.status]).toEqual(['TRANSACTION_NOT_FOUND', 404]);
      }));
});
