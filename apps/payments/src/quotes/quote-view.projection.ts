import { EntitySchema } from '@mikro-orm/core';
import {
  currencyOf,
  decimalToNumber,
  minorUnitsToNumber,
  type OutgoingTransactionStatus,
  type QuoteWire,
  toRateDetailsWire,
} from '@corridor/contracts';
import type { Projection, ProjectionRows, RecordedEvent } from '@corridor/event-store';
import type { QuoteTerms, TransactionEvent } from '../transactions/transaction';
import { executionStatusChanges } from '../transactions/execution-events';

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

type QuoteColumns = {
  id: string;
  platform_id: string;
  transaction_id: string;
  status: OutgoingTransactionStatus;
  terms: QuoteTerms;
  created_at: Date;
  expires_at: Date;
  updated_at: Date;
};

/** Plain SQL for the rows (see transaction-view.rows.ts): one SELECT and one upsert per batch, no MikroORM unit of work. */
const quoteViewRows: ProjectionRows<QuoteRow> = {
  load: async (sql, keys) => {
    const rows = await sql.query<QuoteColumns>(
      `SELECT id, platform_id, transaction_id, status, terms, created_at, expires_at, updated_at FROM ${sql.schema}.quotes
       WHERE id = ANY($1::text[])`,
      [keys],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          platformId: row.platform_id,
          transactionId: row.transaction_id,
          status: row.status,
          terms: row.terms,
          createdAt: new Date(row.created_at),
          expiresAt: new Date(row.expires_at),
          updatedAt: new Date(row.updated_at),
        },
      ]),
    );
  },
  save: async (sql, { upserts, deletes }) => {
    if (upserts.length > 0) {
      await sql.query(
        `INSERT INTO ${sql.schema}.quotes (id, platform_id, transaction_id, status, terms, created_at, expires_at, updated_at)
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::jsonb[], $6::timestamptz[], $7::timestamptz[],
         $8::timestamptz[])
         ON CONFLICT (id) DO UPDATE
         SET platform_id = EXCLUDED.platform_id, transaction_id = EXCLUDED.transaction_id, status = EXCLUDED.status, terms = EXCLUDED.terms,
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, updated_at = EXCLUDED.updated_at`,
        [
          upserts.map((row) => row.id),
          upserts.map((row) => row.platformId),
          upserts.map((row) => row.transactionId),
          upserts.map((row) => row.status),
          upserts.map((row) => JSON.stringify(row.terms)),
          upserts.map((row) => row.createdAt.toISOString()),
          upserts.map((row) => row.expiresAt.toISOString()),
          upserts.map((row) => row.updatedAt.toISOString()),
        ],
      );
    }
    if (deletes.length > 0) await sql.query(`DELETE FROM ${sql.schema}.quotes WHERE id = ANY($1::text[])`, [deletes]);
  },
};

export const quoteViewProjection: Projection<QuoteRow> = {
  name: 'quotes',
  version: 1,
  canHandle: ['QuoteCreated', 'QuoteExpired', ...executionStatusChanges],
  entity: QuoteEntity,
  keyOf: (event) =>
    String(
      event.type === 'QuoteCreated'
        ? (event.data['quote'] as QuoteTerms).quoteId
        : (event.data['quoteId'] ?? (event.data['transaction'] as { quoteId?: string } | undefined)?.quoteId),
    ),
  evolve: evolveQuoteView,
  rows: quoteViewRows,
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
