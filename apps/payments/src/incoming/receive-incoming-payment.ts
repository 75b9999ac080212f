import {
  type Command,
  DomainError,
  type IncomingRateDetailsRecord,
  type CustomerWire,
  type IncomingTransactionRecord,
  invalidInput,
  requireSameRequest,
  type UmaDepositTargetsWire,
} from '@corridor/contracts';
import type { FeeTerms } from '../pricing/fee-schedule';
import { multiply, priceQuote, type Ratio, toDecimalString } from '../pricing/quote-math';
import { approved } from './incoming-approval';
import type { Deposit, IncomingPayment, IncomingPaymentEvent, SenderRecord } from './incoming-payment';
import { sharedCounterpartyInformation } from './sandbox-sender';

// A sandbox UMA payment arrives for a customer: the transaction is CREATED (the sender's lookup)
// and at once PENDING (its receive quote), which sends the INCOMING_PAYMENT.PENDING approval hook.
// A platform with no webhookEndpoint has no hook to ask (and could never answer one): its payment
// is approved in the same decision (PROCESSING, approvedBy AUTO), and the deposit follows at once.
// Everything looked up elsewhere (the customer, the accounts it could be deposited into, the rate,
// the platform's fees) arrives in the command, so the rules here are pure. Where the money goes is
// judged first (chooseDeposit), as it always was, before the amount and the price.
//
// Pricing reuses the quote formula (quote-math.ts) with the receiving amount locked and both legs
// in the receiving currency: the customer receives exactly receivingCurrencyAmount R, and the
// sender's payment converts to the least gross G with G − F − ceil(G × r) ≥ R. The fees F + V
// are in the receiving currency, as the reference's IncomingTransaction.fees and
// IncomingRateDetails are; serviceApiMultiplier is mSATs → receiving minor units net of the
// variable fee.

export type ReceiveIncomingPayment = Command<
  'ReceiveIncomingPayment',
  {
    transactionId: string;
    platformId: string;
    customer: { customerId: string; platformCustomerId: string };
    sender: SenderRecord;
    /** The receiving currency, as the request names it. */
    currency: string;
    /** The customer's default UMA deposit external account and internal accounts, as the accounts service answers them. */
    depositTargets: UmaDepositTargetsWire;
    amount: bigint;
    fees: FeeTerms;
    /** Receiving minor units per mSAT at the mid rate; null when the rate table does not price the currency. */
    msatToReceivingMinor: Ratio | null;
    limits: { min: bigint; max: bigint };
    /** Whether the platform has a webhookEndpoint, i.e. an approval hook to ask. */
    approvalHook: boolean;
    requestFingerprint?: string;
  },
  { now: Date; webhookAnswerSeconds: number; settleRetrySeconds: number }
>;

const IDENTITY: Ratio = { numerator: 1n, denominator: 1n };

export const reconciliationReferenceOf = (transactionId: string): string =>
  `UMA-${transactionId.replace(/-/g, '').slice(-12).toUpperCase()}`;

export const receiveIncomingPayment = (command: ReceiveIncomingPayment, state: IncomingPayment): IncomingPaymentEvent[] => {
  const { transactionId, customer, sender, currency, depositTargets, approvalHook, requestFingerprint } = command.data;
  const { now, webhookAnswerSeconds, settleRetrySeconds } = command.metadata;
  const deposit = chooseDeposit(customer.customerId, currency, depositTargets);
  if (state.kind !== 'None') throw new DomainError('CONFLICT', 'conflict', `Transaction ${transactionId} already exists.`);
  const { price, rateDetails } = priceIncoming(command.data);
  const at = now.toISOString();
  const created: IncomingTransactionRecord = {
    id: transactionId,
    platformId: command.data.platformId,
    type: 'INCOMING',
    status: 'CREATED',
    customerId: customer.customerId,
    platformCustomerId: customer.platformCustomerId,
    destination: { destinationType: 'ACCOUNT', accountId: deposit.accountId, currency },
    receivedAmount: { value: command.data.amount.toString(), currency },
    fees: price.feesIncluded.toString(),
    rateDetails,
    counterpartyInformation: sharedCounterpartyInformation(sender),
    description: `UMA payment from ${sender.umaAddress}`,
    createdAt: at,
    updatedAt: at,
  };
  const pending: IncomingTransactionRecord = {
    ...created,
    status: 'PENDING',
    reconciliationInstructions: { reference: reconciliationReferenceOf(transactionId) },
  };
  return [
    {
      type: 'IncomingPaymentCreated',
      data: {
        transaction: created,
        deposit,
        sender,
        grossAmount: price.totalSendingAmount.toString(),
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
      },
    },
    {
      type: 'IncomingPaymentPending',
      data: { transaction: pending, webhookAnswerDueAt: new Date(now.getTime() + webhookAnswerSeconds * 1000).toISOString() },
    },
    ...(approvalHook ? [] : [approved(pending, now, 'AUTO', settleRetrySeconds)]),
  ];
};

/** The currency must be priced and the amount within the limits; then the price and the reference's rate details. */
const priceIncoming = ({ currency, amount, fees, msatToReceivingMinor, limits }: ReceiveIncomingPayment['data']) => {
  if (!msatToReceivingMinor)
    throw new DomainError('INVALID_CURRENCY', 'validation', `${currency} cannot be received over UMA: no exchange rate prices it.`, {
      field: 'receivingCurrencyCode',
    });
  if (amount < limits.min || amount > limits.max) {
    throw new DomainError(
      'AMOUNT_OUT_OF_RANGE',
      'validation',
      `receivingCurrencyAmount must be from ${limits.min} to ${limits.max} minor units of ${currency}, got ${amount}.`,
      {
        field: 'receivingCurrencyAmount',
        minAmount: Number(limits.min),
        maxAmount: Number(limits.max),
      },
    );
  }
  const price = priceQuote({
    lockedCurrencySide: 'RECEIVING',
    lockedCurrencyAmount: amount,
    sendingDecimals: 0,
    receivingDecimals: 0,
    sendingMinorToMsat: IDENTITY,
    msatToReceivingMinor: IDENTITY,
    ...fees,
  });
  // The amount was checked positive above, and a RECEIVING lock is never refused otherwise.
  if (price.kind !== 'Priced') throw new Error(`Pricing ${amount} ${currency} was refused: ${price.reason}.`);
  const rate = fees.variableFeeRate;
  const rateDetails: IncomingRateDetailsRecord = {
    serviceApiMultiplier: toDecimalString(
      multiply(msatToReceivingMinor, { numerator: rate.denominator - rate.numerator, denominator: rate.denominator }),
    ),
    serviceApiFixedFee: price.fixedFee.toString(),
    serviceApiVariableFeeRate: toDecimalString(rate),
    serviceApiVariableFeeAmount: price.variableFeeAmount.toString(),
  };
  return { price, rateDetails };
};

export const userNotFound = (message: string, field: string) => new DomainError('USER_NOT_FOUND', 'not_found', message, { field });

/**
 * The customer a receive names, as the customers service answers it, may receive the payment: when
 * the request names both a customerId and a receiverUmaAddress they must be the same customer's,
 * and a deleted customer receives nothing (a 404, as an unknown one).
 */
export const acceptReceiver = <Customer extends Pick<CustomerWire, 'id' | 'umaAddress' | 'isDeleted'>>(
  request: { customerId?: string; receiverUmaAddress?: string },
  customer: Customer,
): Customer => {
  const { customerId, receiverUmaAddress } = request;
  if (customerId !== undefined && receiverUmaAddress !== undefined && customer.umaAddress !== receiverUmaAddress) {
    throw invalidInput(
      `receiverUmaAddress ${receiverUmaAddress} is not the UMA address of ${customerId}; send one of the two, or both naming the same ` +
        `customer.`,
      { field: 'receiverUmaAddress' },
    );
  }
  if (customer.isDeleted)
    throw userNotFound(
      `Customer ${customer.id} was deleted and cannot receive payments.`,
      customerId !== undefined ? 'customerId' : 'receiverUmaAddress',
    );
  return customer;
};

/**
 * Where an incoming payment is deposited (spec rules 3-4): the customer's default UMA deposit
 * external account when they have one, which must hold the receiving currency and not be
 * INACTIVE; else their internal account in that currency; a customer with neither cannot receive it.
 */
export const chooseDeposit = (customerId: string, currency: string, targets: UmaDepositTargetsWire): Deposit => {
  const fallback = targets.defaultExternalAccount;
  if (fallback) {
    if (fallback.currency !== currency) {
      throw new DomainError(
        'INVALID_CURRENCY',
        'validation',
        `Customer ${customerId} receives UMA payments into their default deposit account ${fallback.id}, which ` +
          `holds ${fallback.currency}; receive in ${fallback.currency} or change the default.`,
        { field: 'receivingCurrencyCode', depositAccountId: fallback.id, depositCurrency: fallback.currency },
      );
    }
    if (fallback.status === 'INACTIVE')
      throw invalidInput(`The default UMA deposit account ${fallback.id} of customer ${customerId} is INACTIVE and cannot receive.`, {
        field: 'customerId',
      });
    return { kind: 'EXTERNAL_ACCOUNT', accountId: fallback.id, currency };
  }
  const account = targets.internalAccounts.find((candidate) => candidate.currency === currency);
  if (!account) {
    const held = [...new Set(targets.internalAccounts.map((candidate) => candidate.currency))].join(', ') || 'none';
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `Customer ${customerId} has no internal account in ${currency} to receive into (accounts in: ${held}).`,
      { field: 'receivingCurrencyCode' },
    );
  }
  return { kind: 'INTERNAL_ACCOUNT', accountId: account.id, currency };
};

/**
 * A receive retried under its Idempotency-Key is answered from the payment its first attempt made
 * (the command id replays it): only for the same request; another one under the key is a 409.
 */
export const requireSameReceive = (
  recorded: readonly { type: string; data: Record<string, unknown> }[],
  transactionId: string,
  requestFingerprint: string | undefined,
): void => {
  const created = recorded.find((event) => event.type === 'IncomingPaymentCreated');
  const stored = created?.data['requestFingerprint'];
  requireSameRequest(typeof stored === 'string' ? stored : undefined, requestFingerprint, transactionId);
};
