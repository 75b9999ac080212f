import type {
  LockedCurrencySide,
  PaymentInstructionsWire,
  PurposeOfPayment,
  QuoteDestinationData,
  QuoteSourceData,
  RateDetailsRecord,
  TransactionRecord,
} from '@corridor/contracts';
import type { ReceiptDeliveryConfirmed, TransferEvent, TransferTerms } from './transfer-events';
import type { ExecutionEvent, ExecutionState } from './execution-events';

// The Transaction aggregate: one stream per outgoing payment (stream id = the Transaction id). A
// quote is how such a payment starts, so its terms live in the same stream: the quote and its
// transaction change together (the quote's status is the transaction's), and one stream keeps
// them consistent without a second aggregate (docs/decisions/0006-payments.md).
//
// Every event carries the transaction as it is right after the event (TransactionRecord, amounts
// as decimal strings). The read model and the integration events take it from there, so the
// webhooks service renders OUTGOING_PAYMENT.* from the event alone.
//
// The commands on this stream, each decided by one pure function and sent by one runner (or two):
//
//   command            decided in                            sent by
//   CreateQuote        ../quotes/create-quote.ts             ../quotes/quotes.controller.ts (POST /quotes)
//   ExpireQuote        ../quotes/expire-quote.ts             ../quotes/quote-expiry.job.ts; ../execution/execution.controller.ts
//                                                            (a quote found past its expiry on execute)
//   ExecuteQuote       ../execution/execute-quote.ts         ../execution/execution.controller.ts (execute, sandbox send);
//                                                            ../execution/immediate-execution.ts (POST /quotes with immediatelyExecute)
//   AdvanceExecution   ../execution/advance-execution.ts     ../execution/payment-processor.ts
//   CreateTransfer     ../transfers/create-transfer.ts       ../transfers/open-transfer.ts (from transfers.controller.ts)
//   AdvanceTransfer    ../transfers/advance-transfer.ts      ../transfers/transfer-processor.ts
//   ConfirmReceipt     confirm-receipt.ts                    receipts.controller.ts (POST /transactions/{id}/confirm)
//
// Their events live beside this file: execution-events.ts (the payment's execution, with
// payout-rail.ts, whose outcome the stream records) and transfer-events.ts (same-currency
// transfers); the quote's own two events are below.

/** The immutable terms of a quote, as stored. Amounts are decimal strings of minor units. */
export type QuoteTerms = {
  quoteId: string;
  transactionId: string;
  platformId: string;
  createdAt: string;
  expiresAt: string;
  /** As the client sent them (the Quote echoes them). */
  source: QuoteSourceData;
  destination: QuoteDestinationData;
  lockedCurrencySide: LockedCurrencySide;
  lockedCurrencyAmount: string;
  sendingCurrency: string;
  receivingCurrency: string;
  totalSendingAmount: string;
  totalReceivingAmount: string;
  feesIncluded: string;
  exchangeRate: string;
  rateDetails: RateDetailsRecord;
  paymentInstructions?: PaymentInstructionsWire[];
  lookupId?: string;
  purposeOfPayment?: PurposeOfPayment;
  senderCustomerInfo?: Record<string, unknown>;
  /** An external destination's primary identifier, kept for the payout (the sandbox rail reads its suffix). */
  payoutIdentifier?: string;
};

export type QuoteCreated = {
  type: 'QuoteCreated';
  data: { quote: QuoteTerms; transaction: TransactionRecord; requestFingerprint?: string };
};
export type QuoteExpired = {
  type: 'QuoteExpired';
  data: { quoteId: string; transactionId: string; expiredAt: string; transaction: TransactionRecord };
};
export type TransactionEvent = QuoteCreated | QuoteExpired | ExecutionEvent | TransferEvent | ReceiptDeliveryConfirmed;

/** `execution`: the payment's process state once executed (execution-events.ts). */
export type Transaction =
  | { kind: 'None' }
  | { kind: 'Quoted'; quote: QuoteTerms; transaction: TransactionRecord; execution?: ExecutionState }
  /** A same-currency transfer; dueAt is when the rail is next looked at (transfers/advance-transfer.ts). */
  | { kind: 'Transfer'; transfer: TransferTerms; transaction: TransactionRecord; dueAt: string };

export const initialTransaction = (): Transaction => ({ kind: 'None' });

export const evolveTransaction = (state: Transaction, event: TransactionEvent): Transaction => {
  switch (event.type) {
    case 'QuoteCreated':
      return { kind: 'Quoted', quote: event.data.quote, transaction: event.data.transaction };
    case 'QuoteExpired':
      return state.kind === 'Quoted' ? { ...state, transaction: event.data.transaction } : state;
    case 'TransferCreated':
      return { kind: 'Transfer', transfer: event.data.transfer, transaction: event.data.transaction, dueAt: event.data.transfer.createdAt };
    case 'TransferSubmitted':
      return state.kind === 'Transfer' ? { ...state, transaction: event.data.transaction, dueAt: event.data.dueAt } : state;
    case 'TransferCompleted':
    case 'TransferFailed':
    case 'ReceiptDeliveryConfirmed':
      return state.kind === 'None' ? state : { ...state, transaction: event.data.transaction };
    case 'PaymentExecutionStarted':
    case 'PaymentFundsHeld':
    case 'PaymentCompleted':
    case 'PaymentFailed':
    case 'PaymentRefundStarted':
    case 'PaymentRefundCompleted':
    case 'PaymentRefundFailed':
      return state.kind === 'Quoted' ? { ...state, transaction: event.data.transaction, execution: event.data.execution } : state;
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};

export const transactionDecider = { evolve: evolveTransaction, initialState: initialTransaction };
