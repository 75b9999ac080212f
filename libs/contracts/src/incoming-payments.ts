import { type AmountJson, type CurrencyAmountWire, toWireAmount } from './money';
import {
  decimalToNumber,
  type IncomingFailureReason,
  minorUnitsToNumber,
  type TransactionRecord,
  type TransactionWire,
  toTransactionWire,
} from './payments';

// NATS message data and wire objects of incoming payments (UMA payments received by a customer,
// docs/decisions/0013-incoming-payments.md). An INCOMING transaction lives in the same Transaction
// id space, read model and integration events as an OUTGOING one; its stored form is
// IncomingTransactionRecord and its wire form the reference's IncomingTransaction.

export type IncomingTransactionStatus = 'CREATED' | 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'REJECTED' | 'FAILED' | 'REFUNDED' | 'EXPIRED';

/** IncomingRateDetails with the spec's serviceApi* names, in the receiving currency; decimal strings. */
export type IncomingRateDetailsRecord = {
  serviceApiMultiplier: string;
  serviceApiFixedFee: string;
  serviceApiVariableFeeRate: string;
  serviceApiVariableFeeAmount: string;
};

export type IncomingTransactionRecord = {
  id: string;
  platformId: string;
  type: 'INCOMING';
  status: IncomingTransactionStatus;
  customerId: string;
  platformCustomerId: string;
  /** Where the money is deposited: the default UMA deposit external account or an internal account. */
  destination: { destinationType: 'ACCOUNT'; accountId: string; currency: string };
  receivedAmount: AmountJson;
  /** Minor units of the receiving currency: the receive quote's total fees. */
  fees: string;
  rateDetails: IncomingRateDetailsRecord;
  counterpartyInformation: Record<string, string>;
  /** Absent only while CREATED. */
  reconciliationInstructions?: { reference: string };
  description?: string;
  failureReason?: IncomingFailureReason;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  /** POST /transactions/{id}/confirm: when the platform delivered the receipt (the reference's Transaction member). */
  receiptDeliveryConfirmedAt?: string;
};

export type AnyTransactionRecord = TransactionRecord | IncomingTransactionRecord;

export type IncomingRateDetailsWire = {
  serviceApiMultiplier: number;
  serviceApiFixedFee: number;
  serviceApiVariableFeeRate: number;
  serviceApiVariableFeeAmount: number;
};

export type IncomingTransactionWire = {
  id: string;
  status: IncomingTransactionStatus;
  type: 'INCOMING';
  customerId: string;
  platformCustomerId: string;
  destination: { destinationType: 'ACCOUNT'; accountId: string; currency: string };
  receivedAmount: CurrencyAmountWire;
  fees: number;
  rateDetails: IncomingRateDetailsWire;
  counterpartyInformation: Record<string, string>;
  reconciliationInstructions?: { reference: string };
  description?: string;
  failureReason?: IncomingFailureReason;
  createdAt: string;
  updatedAt: string;
  settledAt?: string;
  /** POST /transactions/{id}/confirm: when the platform delivered the receipt (the reference's Transaction member). */
  receiptDeliveryConfirmedAt?: string;
};

/** The reference IncomingTransaction. platformId stays out: it is the tenant, not a member of the resource. */
export const toIncomingTransactionWire = (record: IncomingTransactionRecord): IncomingTransactionWire => ({
  id: record.id,
  status: record.status,
  type: 'INCOMING',
  customerId: record.customerId,
  platformCustomerId: record.platformCustomerId,
  destination: record.destination,
  receivedAmount: toWireAmount({ value: BigInt(record.receivedAmount.value), currency: record.receivedAmount.currency }),
  fees: minorUnitsToNumber(record.fees),
  rateDetails: {
    serviceApiMultiplier: decimalToNumber(record.rateDetails.serviceApiMultiplier),
    serviceApiFixedFee: minorUnitsToNumber(record.rateDetails.serviceApiFixedFee),
    serviceApiVariableFeeRate: decimalToNumber(record.rateDetails.serviceApiVariableFeeRate),
    serviceApiVariableFeeAmount: minorUnitsToNumber(record.rateDetails.serviceApiVariableFeeAmount),
  },
  counterpartyInformation: record.counterpartyInformation,
  ...(record.reconciliationInstructions !== undefined ? { reconciliationInstructions: record.reconciliationInstructions } : {}),
  ...(record.description !== undefined ? { description: record.description } : {}),
  ...(record.failureReason !== undefined ? { failureReason: record.failureReason } : {}),
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  ...(record.settledAt !== undefined ? { settledAt: record.settledAt } : {}),
  ...(record.receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt: record.receiptDeliveryConfirmedAt } : {}),
});

/** Either direction's wire object, told apart by the record's type. */
/**
 * An incoming UMA payment, as opposed to a quote's or a transfer's transaction (a transfer-in is
 * INCOMING too): it alone has no source, its sender being an UMA address outside Corridor.
 */
export const isUmaIncomingRecord = (record: AnyTransactionRecord): record is IncomingTransactionRecord => !('source' in record);

export const toAnyTransactionWire = (record: AnyTransactionRecord): TransactionWire | IncomingTransactionWire =>
  isUmaIncomingRecord(record) ? toIncomingTransactionWire(record) : toTransactionWire(record);

// ---------------------------------------------------------------------------------------------
// Requests

/** POST /sandbox/uma/receive; the amount as a decimal string of minor units. */
export type SandboxUmaReceiveData = {
  senderUmaAddress: string;
  receiverUmaAddress?: string;
  customerId?: string;
  receivingCurrencyCode: string;
  receivingCurrencyAmount: string;
};

export type ApproveIncomingPaymentData = { transactionId: string; receiverCustomerInfo?: Record<string, unknown> };
export type RejectIncomingPaymentData = { transactionId: string; reason?: string };

/**
 * The webhooks service's report of the one attempt at an INCOMING_PAYMENT.PENDING webhook: the
 * receiver's status and body, or the error when there was no answer.
 */
/** noEndpoint: the platform had no webhookEndpoint when its approval hook was due, so no hook was sent. */
export type IncomingApprovalAnswerData = {
  transactionId: string;
  statusCode?: number;
  responseBody?: string;
  error?: string;
  noEndpoint?: boolean;
};

/** The webhook `data` of INCOMING_PAYMENT.*: the transaction plus the receiver fields asked for. */
export type IncomingPaymentWebhookDataWire = IncomingTransactionWire & {
  requestedReceiverCustomerInfoFields: { name: string; mandatory: boolean }[];
};

/** accounts.uma-deposit.targets: a customer's default UMA deposit external account and open internal accounts, in one read. */
export type UmaDepositTargetsData = { customerId: string };
export type UmaDepositTargetsWire = {
  defaultExternalAccount: { id: string; currency: string; status: string } | null;
  internalAccounts: { id: string; currency: string; status: string }[];
};
