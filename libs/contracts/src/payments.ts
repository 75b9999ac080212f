import type { PaymentInstructionsWire } from './accounts';
import { type AmountJson, type Currency, type CurrencyAmountWire, currencies, toWireAmount } from './money';

// NATS message data of the payments service (exchange rates, quotes, transactions). Amounts cross
// NATS as decimal strings of minor units and rates as decimal strings; only the HTTP wire objects
// rendered at the end (QuoteWire, TransactionWire, ExchangeRateWire) hold JSON numbers, as the
// reference defines them. `toTransactionWire` is here, pure, so any service holding a
// TransactionRecord from an integration event (the webhooks service) renders the same object.

export type LockedCurrencySide = 'SENDING' | 'RECEIVING';
export const purposesOfPayment = [
  'GIFT',
  'SELF',
  'GOODS_OR_SERVICES',
  'EDUCATION',
  'HEALTH_OR_MEDICAL',
  'REAL_ESTATE_PURCHASE',
  'TAX_PAYMENT',
  'LOAN_PAYMENT',
  'UTILITY_BILL',
  'DONATION',
  'TRAVEL',
  'OTHER',
] as const;
export type PurposeOfPayment = (typeof purposesOfPayment)[number];

/** The reference's largest lockedCurrencyAmount (QuoteRequest.lockedCurrencyAmount maximum). */
export const LOCKED_CURRENCY_AMOUNT_MAX = 9_000_000_000_000_000;

export type OutgoingTransactionStatus = 'PENDING' | 'EXPIRED' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
export const outgoingTransactionStatuses: readonly OutgoingTransactionStatus[] = [
  'PENDING',
  'EXPIRED',
  'PROCESSING',
  'COMPLETED',
  'FAILED',
];
export type OutgoingFailureReason =
  'QUOTE_EXPIRED' | 'QUOTE_EXECUTION_FAILED' | 'LIGHTNING_PAYMENT_FAILED' | 'FUNDING_AMOUNT_MISMATCH' | 'COUNTERPARTY_POST_TX_FAILED';
export type IncomingFailureReason =
  | 'LNURLP_FAILED'
  | 'PAY_REQUEST_FAILED'
  | 'PAYMENT_APPROVAL_WEBHOOK_ERROR'
  | 'PAYMENT_APPROVAL_TIMED_OUT'
  | 'OFFRAMP_FAILED'
  | 'MISSING_MANDATORY_PAYEE_DATA'
  | 'QUOTE_EXPIRED'
  | 'QUOTE_EXECUTION_FAILED';
export type TransactionType = 'OUTGOING' | 'INCOMING';

// ---------------------------------------------------------------------------------------------
// Requests

export type QuoteSourceData =
  | { sourceType: 'ACCOUNT'; accountId: string; customerId?: string }
  | { sourceType: 'REALTIME_FUNDING'; currency: string; customerId?: string; cryptoNetwork?: string };

export type QuoteDestinationData =
  | { destinationType: 'ACCOUNT'; accountId: string; paymentRail?: string }
  | { destinationType: 'UMA_ADDRESS'; umaAddress: string; currency?: string };

export type CreateQuoteData = {
  source: QuoteSourceData;
  destination: QuoteDestinationData;
  lockedCurrencySide: LockedCurrencySide;
  /** Minor units of the locked side's currency, as a decimal string. */
  lockedCurrencyAmount: string;
  lookupId?: string;
  immediatelyExecute?: boolean;
  description?: string;
  purposeOfPayment?: PurposeOfPayment;
  senderCustomerInfo?: Record<string, unknown>;
};

/** asOf (a Corridor extension, decision 0039): the quote as it stood at that time, folded from its transaction's events. */
export type QuoteIdData = { quoteId: string; asOf?: string };
/** asOf (GET /transactions/{id}?asOf=, a Corridor extension): the transaction as it stood at that time, folded from its events. */
export type TransactionIdData = { transactionId: string; asOf?: string };

export type ListExchangeRatesData = {
  sourceCurrency?: string;
  destinationCurrencies?: string[];
  /** Minor units of the source currency, as a decimal string; the reference's default is 10000. */
  sendingAmount?: string;
};

export type ListTransactionsData = {
  customerId?: string;
  platformCustomerId?: string;
  status?: string;
  type?: 'INCOMING' | 'OUTGOING';
  startDate?: string;
  endDate?: string;
  sortOrder?: 'asc' | 'desc';
  /** Either side of the transaction (source or destination account id). */
  accountIdentifier?: string;
  senderAccountIdentifier?: string;
  receiverAccountIdentifier?: string;
  reference?: string;
  limit: number;
  cursor?: string;
};

// ---------------------------------------------------------------------------------------------
// Stored form of a transaction (events, read model, integration events)

export type TransactionSourceRecord =
  | { sourceType: 'ACCOUNT'; accountId: string; currency: string }
  | { sourceType: 'REALTIME_FUNDING'; currency: string; customerId?: string };

export type TransactionDestinationRecord =
  | { destinationType: 'ACCOUNT'; accountId: string; currency: string }
  | { destinationType: 'UMA_ADDRESS'; umaAddress: string; currency: string };

/** OutgoingRateDetails with the spec's serviceApi* names; every member a decimal string. */
export type RateDetailsRecord = {
  counterpartyMultiplier: string;
  counterpartyFixedFee: string;
  serviceApiMultiplier: string;
  serviceApiFixedFee: string;
  serviceApiVariableFeeRate: string;
  serviceApiVariableFeeAmount: string;
};

export type TransactionRecord = {
  id: string;
  platformId: string;
  /** INCOMING: a transfer-in (money arriving in an internal account); its sentAmount equals receivedAmount and is not shown. */
  type: TransactionType;
  status: OutgoingTransactionStatus;
  customerId: string;
  platformCustomerId: string;
  source: TransactionSourceRecord;
  destination: TransactionDestinationRecord;
  sentAmount: AmountJson;
  receivedAmount: AmountJson;
  /** Sending-currency units per receiving-currency unit, as a decimal string. */
  exchangeRate: string;
  /** Minor units of the sending currency. */
  fees: string;
  /** Absent on same-currency transfers: nothing is converted and no fee is charged. */
  rateDetails?: RateDetailsRecord;
  quoteId?: string;
  description?: string;
  paymentInstructions?: PaymentInstructionsWire[];
  failureReason?: OutgoingFailureReason | IncomingFailureReason;
  /** The return of the sent funds after a failure or a cancellation (the reference's Refund). */
  refund?: RefundRecord;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  receiptDeliveryConfirmedAt?: string;
  reconciliationInstructions?: ReconciliationInstructionsWire;
  counterpartyInformation?: Record<string, unknown>;
  /** The agent that started the transaction (an agent's transfer or quote execution, decision 0016). */
  agentId?: string;
};

/** The reference's ReconciliationInstructions (at least one member). */
export type ReconciliationInstructionsWire = { reference?: string; transactionHash?: string };

export type RefundStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type RefundReason = 'TRANSACTION_FAILED' | 'USER_CANCELLATION' | 'TIMEOUT';
export type RefundRecord = { reference: string; initiatedAt: string; status: RefundStatus; reason?: RefundReason; settledAt?: string };

/** Data of every integration event about a transaction: its state right after the change. */
export type TransactionChangedData = { transaction: TransactionRecord };

// ---------------------------------------------------------------------------------------------
// HTTP wire objects

export type RateDetailsWire = {
  counterpartyMultiplier: number;
  counterpartyFixedFee: number;
  serviceApiMultiplier: number;
  serviceApiFixedFee: number;
  serviceApiVariableFeeRate: number;
  serviceApiVariableFeeAmount: number;
};

export type TransactionWire = {
  id: string;
  status: OutgoingTransactionStatus;
  type: TransactionType;
  customerId: string;
  platformCustomerId: string;
  source: TransactionSourceRecord;
  destination: TransactionDestinationRecord;
  /** OUTGOING only. */
  sentAmount?: CurrencyAmountWire;
  receivedAmount: CurrencyAmountWire;
  /** OUTGOING only. */
  exchangeRate?: number;
  fees: number;
  rateDetails?: RateDetailsWire;
  quoteId?: string;
  description?: string;
  paymentInstructions?: PaymentInstructionsWire[];
  failureReason?: OutgoingFailureReason | IncomingFailureReason;
  refund?: RefundRecord;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  receiptDeliveryConfirmedAt?: string;
  reconciliationInstructions?: ReconciliationInstructionsWire;
  counterpartyInformation?: Record<string, unknown>;
  agentId?: string;
};

export type QuoteWire = {
  id: string;
  status: OutgoingTransactionStatus;
  createdAt: string;
  expiresAt: string;
  source: QuoteSourceData;
  destination: QuoteDestinationData;
  sendingCurrency: Currency;
  receivingCurrency: Currency;
  totalSendingAmount: number;
  totalReceivingAmount: number;
  exchangeRate: number;
  feesIncluded: number;
  transactionId: string;
  paymentInstructions?: PaymentInstructionsWire[];
  rateDetails: RateDetailsWire;
};

export type ExchangeRateWire = {
  sourceCurrency: Currency;
  sendingAmount: number;
  minSendingAmount: number;
  maxSendingAmount: number;
  destinationCurrency: Currency;
  destinationPaymentRail: string;
  receivingAmount: number;
  exchangeRate: number;
  fees: { fixed: number; total: number };
  updatedAt: string;
};

/** A decimal string (rate, multiplier) as the JSON number the reference wants; display only, never money math. */
export const decimalToNumber = (decimal: string): number => Number(decimal);

/** Minor units held as a decimal string, as a JSON integer (refuses what a JSON number cannot hold exactly). */
export const minorUnitsToNumber = (value: string): number => {
  const units = BigInt(value);
  if (units > BigInt(Number.MAX_SAFE_INTEGER) || units < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`${value} exceeds the safe integer range.`);
  return Number(units);
};

export const toRateDetailsWire = (details: RateDetailsRecord): RateDetailsWire => ({
  counterpartyMultiplier: decimalToNumber(details.counterpartyMultiplier),
  counterpartyFixedFee: minorUnitsToNumber(details.counterpartyFixedFee),
  serviceApiMultiplier: decimalToNumber(details.serviceApiMultiplier),
  serviceApiFixedFee: minorUnitsToNumber(details.serviceApiFixedFee),
  serviceApiVariableFeeRate: decimalToNumber(details.serviceApiVariableFeeRate),
  serviceApiVariableFeeAmount: minorUnitsToNumber(details.serviceApiVariableFeeAmount),
});

const wireAmount = (amount: AmountJson): CurrencyAmountWire => toWireAmount({ value: BigInt(amount.value), currency: amount.currency });

/**
 * The reference OutgoingTransaction (IncomingTransaction for a transfer-in).
 * platformId stays out: it is the tenant, not a member of the resource.
 */
export const toTransactionWire = (record: TransactionRecord): TransactionWire => ({
  id: record.id,
  status: record.status,
  type: record.type,
  customerId: record.customerId,
  platformCustomerId: record.platformCustomerId,
  source: record.source,
  destination: record.destination,
  ...(record.type === 'OUTGOING' ? { sentAmount: wireAmount(record.sentAmount) } : {}),
  receivedAmount: wireAmount(record.receivedAmount),
  ...(record.type === 'OUTGOING' ? { exchangeRate: decimalToNumber(record.exchangeRate) } : {}),
  fees: minorUnitsToNumber(record.fees),
  ...(record.rateDetails !== undefined ? { rateDetails: toRateDetailsWire(record.rateDetails) } : {}),
  ...(record.quoteId !== undefined ? { quoteId: record.quoteId } : {}),
  ...(record.description !== undefined ? { description: record.description } : {}),
  ...(record.paymentInstructions !== undefined ? { paymentInstructions: record.paymentInstructions } : {}),
  ...(record.failureReason !== undefined ? { failureReason: record.failureReason } : {}),
  ...(record.refund !== undefined ? { refund: record.refund } : {}),
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  ...(record.settledAt !== undefined ? { settledAt: record.settledAt } : {}),
  ...(record.receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt: record.receiptDeliveryConfirmedAt } : {}),
  ...(record.reconciliationInstructions !== undefined ? { reconciliationInstructions: record.reconciliationInstructions } : {}),
  ...(record.counterpartyInformation !== undefined ? { counterpartyInformation: record.counterpartyInformation } : {}),
  ...(record.agentId !== undefined ? { agentId: record.agentId } : {}),
});

export const currencyOf = (code: string): Currency => {
  const currency = currencies[code];
  if (!currency) throw new RangeError(`Unknown currency ${code}.`);
  return currency;
};
