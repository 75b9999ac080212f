import { EntitySchema } from '@mikro-orm/core';
import { currencyOf, decimalToNumber, minorUnitsToNumber, type OutgoingTransactionStatus, type QuoteWire, toRateDetailsWire } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { QuoteTerms, TransactionEvent } from '../transactions/transaction';
import { executionStatusChanges } from '../execution/execution-events';

/** A quote as GET /quotes/{id} shows it: its terms and its transaction's status. */
export type QuoteRow = {
  id: string;
  platformId: string;
  transactionId: string;
  status: OutgoingTransactionStatus;
  terms: QuoteTerms;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
};

export const QuoteEntity = new EntitySchema<QuoteRow>({
  name: 'QuoteRow',
  tableName: 'quotes',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    transactionId: { type: 'string' },
    status: { type: 'string' },
    terms: { type: 'json' },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveQuoteView = (row: QuoteRow | null, recorded: RecordedEvent): QuoteRow | null => {
  const event = recorded as unknown as TransactionEvent;
  switch (event.type) {
    case 'QuoteCreated': {
      const { quote } = event.data;
      return {
        id: quote.quoteId,
        platformId: quote.platformId,
        transactionId: quote.transactionId,
        status: event.data.transaction.status,
        terms: quote,
        createdAt: new Date(quote.createdAt),
        expiresAt: new Date(quote.expiresAt),
        updatedAt: new Date(quote.createdAt),
      };
    }
    case 'QuoteExpired':
    case 'PaymentExecutionStarted':
    case 'PaymentCompleted':
    case 'PaymentFailed':
    case 'PaymentRefundStarted':
    case 'PaymentRefundCompleted':
    case 'PaymentRefundFailed':
      // An event before the quote's creation cannot occur within one stream; skip rather than stall.
      return row && { ...row, status: event.data.transaction.status, updatedAt: new Date(event.data.transaction.updatedAt) };
    default:
      return row;
  }
};

export const quoteViewProjection: Projection<QuoteRow> = {
  name: 'quotes',
  version: 1,
  canHandle: ['QuoteCreated', 'QuoteExpired', ...executionStatusChanges],
  entity: QuoteEntity,
  keyOf: (event) =>
    String(event.type === 'QuoteCreated' ? (event.data['quote'] as QuoteTerms).quoteId : (event.data['quoteId'] ?? (event.data['transaction'] as { quoteId?: string } | undefined)?.quoteId)),
  evolve: evolveQuoteView,
};

export const renderQuote = (row: Pick<QuoteRow, 'status' | 'terms'>): QuoteWire => {
  const { terms } = row;
  return {
    id: terms.quoteId,
    status: row.status,
    createdAt: terms.createdAt,
    expiresAt: terms.expiresAt,
    source: terms.source,
    destination: terms.destination,
    sendingCurrency: currencyOf(terms.sendingCurrency),
    receivingCurrency: currencyOf(terms.receivingCurrency),
    totalSendingAmount: minorUnitsToNumber(terms.totalSendingAmount),
    totalReceivingAmount: minorUnitsToNumber(terms.totalReceivingAmount),
    exchangeRate: decimalToNumber(terms.exchangeRate),
    feesIncluded: minorUnitsToNumber(terms.feesIncluded),
    transactionId: terms.transactionId,
    ...(terms.paymentInstructions ? { paymentInstructions: terms.paymentInstructions } : {}),
    rateDetails: toRateDetailsWire(terms.rateDetails),
  };
};
