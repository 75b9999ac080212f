import {
  type Command,
  type CreateQuoteData,
  DomainError,
  fundingInstructionsOf,
  fundingReferenceOf,
  invalidInput,
  type PaymentInstructionsWire,
  requireSameRequest,
  type TransactionDestinationRecord,
  type TransactionRecord,
  type TransactionSourceRecord,
} from '@corridor/contracts';
import type { FeeTerms } from '../pricing/fee-schedule';
import type { QuoteCreated, QuoteTerms, Transaction, TransactionEvent } from '../transactions/transaction';
import { type PricedQuote, priceQuote, type Ratio } from '../pricing/quote-math';

// Creating a quote creates its transaction (PENDING) in the same event. Everything looked up
// elsewhere (the source and destination accounts, the rates, the platform's fees) arrives in the
// command, so the rules below are pure and the controller only gathers and appends.

/** Who pays: an internal account (its owner is the sender) or real-time funding for a customer or the platform. */
export type ResolvedSource = {
  sourceType: 'ACCOUNT' | 'REALTIME_FUNDING';
  accountId?: string;
  /** The source internal account's type; an EMBEDDED_WALLET source executes only with the wallet's stamp. */
  accountType?: string;
  currency: string;
  /** null: the platform itself sends. */
  customerId: string | null;
  platformCustomerId: string | null;
  cryptoNetwork?: string;
};

/** payoutIdentifier: an external account's primary identifier (account number, IBAN …), which the sandbox rail reads its outcome from. */
export type ResolvedDestination =
  | { destinationType: 'ACCOUNT'; accountId: string; currency: string; payoutIdentifier?: string }
  | { destinationType: 'UMA_ADDRESS'; umaAddress: string; currency: string };

export type CreateQuote = Command<
  'CreateQuote',
  {
    quoteId: string;
    transactionId: string;
    platformId: string;
    request: CreateQuoteData;
    source: ResolvedSource;
    destination: ResolvedDestination;
    /** null when the rate table does not price one of the two currencies. */
    legs: { sendingMinorToMsat: Ratio; msatToReceivingMinor: Ratio; sendingDecimals: number; receivingDecimals: number } | null;
    fees: FeeTerms;
    sendingLimits: { min: bigint; max: bigint };
    /** From the receiver lookup the quote cites (docs/decisions/0010-uma.md): what the receiver accepts, in receiving minor units. */
    receivingLimits?: { min: bigint; max: bigint };
    /** The create's fingerprint under an Idempotency-Key (decision 0028): a retry must match it. */
    requestFingerprint?: string;
  },
  { now: Date; ttlSeconds: number }
>;

/** Networks a REALTIME_FUNDING payer can use per crypto currency, and the wallet that receives on each. */
const fundingWallets: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  BTC: { SPARK: 'SPARK_WALLET', LIGHTNING: 'SPARK_WALLET' },
  USDB: { SPARK: 'SPARK_WALLET' },
  USDC: { SOLANA: 'SOLANA_WALLET', BASE: 'BASE_WALLET' },
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const outOfRange = (message: string, details: Record<string, unknown> = {}) =>
  new DomainError('AMOUNT_OUT_OF_RANGE', 'validation', message, { field: 'lockedCurrencyAmount', ...details });

/** Instructions to fund a REALTIME_FUNDING quote, keyed by the quote so the funds can be matched to it. */
const realtimeFundingInstructions = (
  quoteId: string,
  source: ResolvedSource,
  amount: bigint,
  expiresAt: string,
): PaymentInstructionsWire[] => {
  const wallets = fundingWallets[source.currency];
  const all = fundingInstructionsOf({ accountId: quoteId, customerId: source.customerId, currency: source.currency });
  const chosen = wallets
    ? all.filter((instruction) => instruction.accountOrWalletInfo.accountType === wallets[source.cryptoNetwork ?? ''])
    : all;
  if (chosen.length === 0) {
    throw invalidInput(
      `Real-time funding in ${source.currency} is not offered: no payment instructions can be given for it. Fund from an internal ` +
        `account instead.`,
      { field: 'source.currency' },
    );
  }
  const payWith = wallets ? `to this address on ${source.cryptoNetwork}` : `quoting the reference ${fundingReferenceOf(quoteId)}`;
  return chosen.map((instruction) => ({
    ...instruction,
    instructionsNotes:
      `Send exactly ${amount} minor units of ${source.currency} ${payWith} before ${expiresAt}; ` + `the quote executes when they arrive.`,
  }));
};

/**
 * An Embedded Wallet source: the payload the wallet's session key must stamp to execute the quote
 * (POST /quotes/{id}/execute with Grid-Wallet-Signature), Turnkey activity JSON naming the quote.
 */
const walletSigningInstructions = (
  quoteId: string,
  platformId: string,
  source: ResolvedSource,
  amount: bigint,
  receivingCurrency: string,
  now: Date,
  expiresAt: string,
): PaymentInstructionsWire[] => [
  {
    accountOrWalletInfo: {
      accountType: 'EMBEDDED_WALLET',
      payloadToSign: JSON.stringify({
        type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
        timestampMs: String(now.getTime()),
        organizationId: platformId,
        parameters: { signWith: source.accountId, quoteId, amount: amount.toString(), currency: source.currency, receivingCurrency },
      }),
    },
    instructionsNotes:
      `Stamp payloadToSign with a session key of the wallet and send it as Grid-Wallet-Signature on POST ` +
      `/quotes/${quoteId}/execute before ${expiresAt}.`,
  },
];

const checkRequest = (command: CreateQuote): void => {
  const { source, destination, request } = command.data;
  if (source.currency === destination.currency) {
    throw invalidInput(
      `The source and the destination are both in ${source.currency}, and a quote converts between currencies. Move money within one ` +
        `currency with POST /transfer-in or POST /transfer-out.`,
      { field: 'destination' },
    );
  }
  if (request.immediatelyExecute === true && source.accountType === 'EMBEDDED_WALLET') {
    throw invalidInput(
      'immediatelyExecute cannot apply to a quote from an Embedded Wallet: its execution needs a Grid-Wallet-Signature over the quote’s ' +
        'payloadToSign. Create the quote, then POST /quotes/{quoteId}/execute with the stamp.',
      { field: 'immediatelyExecute' },
    );
  }
  if (request.immediatelyExecute === true && source.sourceType === 'REALTIME_FUNDING') {
    throw invalidInput(
      'immediatelyExecute cannot apply to a REALTIME_FUNDING quote: it executes when its funds arrive. Leave immediatelyExecute out.',
      { field: 'immediatelyExecute' },
    );
  }
  if (
    source.sourceType === 'REALTIME_FUNDING' &&
    fundingWallets[source.currency] &&
    !fundingWallets[source.currency]?.[source.cryptoNetwork ?? '']
  ) {
    const networks = Object.keys(fundingWallets[source.currency] ?? {}).join(' or ');
    throw invalidInput(`source.cryptoNetwork must be ${networks} to fund in ${source.currency}.`, { field: 'source.cryptoNetwork' });
  }
};

export const createQuote = (command: CreateQuote, state: Transaction): TransactionEvent[] => {
  const { transactionId, requestFingerprint } = command.data;
  if (state.kind !== 'None') throw new DomainError('CONFLICT', 'conflict', `Transaction ${transactionId} already exists.`);
  checkRequest(command);
  const price = priceRequest(command);
  checkLimits(command, price);
  const created: QuoteCreated = {
    type: 'QuoteCreated',
    data: { ...quoteRecords(command, price), ...(requestFingerprint !== undefined ? { requestFingerprint } : {}) },
  };
  return [created];
};

/** The quote's price at the command's rates and fees; a request the rates cannot price, or that prices to nothing, is refused. */
const priceRequest = (command: CreateQuote): PricedQuote => {
  const { request, source, destination, legs, fees } = command.data;
  if (!legs)
    throw invalidInput(`No exchange rate is available from ${source.currency} to ${destination.currency}.`, { field: 'destination' });
  const lockedCurrencyAmount = BigInt(request.lockedCurrencyAmount);
  const price = priceQuote({ lockedCurrencySide: request.lockedCurrencySide, lockedCurrencyAmount, ...legs, ...fees });
  if (price.kind === 'Priced') return price;
  switch (price.reason) {
    case 'NOT_POSITIVE':
      throw invalidInput(`lockedCurrencyAmount must be more than 0, got ${lockedCurrencyAmount}.`, { field: 'lockedCurrencyAmount' });
    case 'FEES_EXCEED_AMOUNT':
      throw outOfRange(
        `lockedCurrencyAmount ${lockedCurrencyAmount} ${source.currency} does not cover the fees of ${price.feesIncluded}; send more.`,
        { feesIncluded: Number(price.feesIncluded) },
      );
    case 'RECEIVES_NOTHING':
      throw outOfRange(
        `lockedCurrencyAmount ${lockedCurrencyAmount} ${source.currency}, after fees, is worth less than one minor unit ` +
          `of ${destination.currency}; send more.`,
      );
  }
};

/** The platform's sending limits, the wire's safe integers, and what the receiver accepts (when a lookup said). */
const checkLimits = (command: CreateQuote, price: PricedQuote): void => {
  const { source, destination, sendingLimits, receivingLimits } = command.data;
  const sending = price.totalSendingAmount;
  if (sending < sendingLimits.min || sending > sendingLimits.max || price.totalReceivingAmount > MAX_SAFE) {
    throw outOfRange(
      `This quote would send ${sending} minor units of ${source.currency}; a payment sends from ${sendingLimits.min} ` +
        `to ${sendingLimits.max}. Change lockedCurrencyAmount.`,
      { minSendingAmount: Number(sendingLimits.min), maxSendingAmount: Number(sendingLimits.max) },
    );
  }
  if (receivingLimits && (price.totalReceivingAmount < receivingLimits.min || price.totalReceivingAmount > receivingLimits.max)) {
    throw outOfRange(
      `This quote would deliver ${price.totalReceivingAmount} minor units of ${destination.currency}; the receiver accepts ` +
        `from ${receivingLimits.min} to ${receivingLimits.max}. Change lockedCurrencyAmount.`,
      { minReceivingAmount: Number(receivingLimits.min), maxReceivingAmount: Number(receivingLimits.max) },
    );
  }
};

/** The quote's terms and its PENDING transaction, as QuoteCreated records them. */
const quoteRecords = (command: CreateQuote, price: PricedQuote): { quote: QuoteTerms; transaction: TransactionRecord } => {
  const { quoteId, transactionId, platformId, request, source, destination } = command.data;
  const { now, ttlSeconds } = command.metadata;
  const sending = price.totalSendingAmount;
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000).toISOString();
  const rateDetails = {
    counterpartyMultiplier: price.counterpartyMultiplier,
    counterpartyFixedFee: '0',
    serviceApiMultiplier: price.serviceApiMultiplier,
    serviceApiFixedFee: price.fixedFee.toString(),
    serviceApiVariableFeeRate: price.serviceApiVariableFeeRate,
    serviceApiVariableFeeAmount: price.variableFeeAmount.toString(),
  };
  const paymentInstructions =
    source.sourceType === 'REALTIME_FUNDING'
      ? realtimeFundingInstructions(quoteId, source, sending, expiresAt)
      : source.accountType === 'EMBEDDED_WALLET'
        ? walletSigningInstructions(quoteId, platformId, source, sending, destination.currency, now, expiresAt)
        : undefined;
  const quote: QuoteTerms = {
    quoteId,
    transactionId,
    platformId,
    createdAt,
    expiresAt,
    source: request.source,
    destination: request.destination,
    lockedCurrencySide: request.lockedCurrencySide,
    lockedCurrencyAmount: BigInt(request.lockedCurrencyAmount).toString(),
    sendingCurrency: source.currency,
    receivingCurrency: destination.currency,
    totalSendingAmount: sending.toString(),
    totalReceivingAmount: price.totalReceivingAmount.toString(),
    feesIncluded: price.feesIncluded.toString(),
    exchangeRate: price.exchangeRate,
    rateDetails,
    ...(paymentInstructions ? { paymentInstructions } : {}),
    ...(request.lookupId !== undefined ? { lookupId: request.lookupId } : {}),
    ...(request.purposeOfPayment !== undefined ? { purposeOfPayment: request.purposeOfPayment } : {}),
    ...(request.senderCustomerInfo !== undefined ? { senderCustomerInfo: request.senderCustomerInfo } : {}),
    ...(destination.destinationType === 'ACCOUNT' && destination.payoutIdentifier !== undefined
      ? { payoutIdentifier: destination.payoutIdentifier }
      : {}),
  };
  const transaction: TransactionRecord = {
    id: transactionId,
    platformId,
    type: 'OUTGOING',
    status: 'PENDING',
    // A platform's own payment has no customer; the reference requires both members, so they name the platform.
    customerId: source.customerId ?? platformId,
    platformCustomerId: source.platformCustomerId ?? platformId,
    source: transactionSourceOf(source),
    destination: transactionDestinationOf(destination),
    sentAmount: { value: sending.toString(), currency: source.currency },
    receivedAmount: { value: price.totalReceivingAmount.toString(), currency: destination.currency },
    exchangeRate: price.exchangeRate,
    fees: price.feesIncluded.toString(),
    rateDetails,
    quoteId,
    ...(request.description !== undefined ? { description: request.description } : {}),
    ...(paymentInstructions ? { paymentInstructions } : {}),
    createdAt,
    updatedAt: createdAt,
  };
  return { quote, transaction };
};

const transactionSourceOf = (source: ResolvedSource): TransactionSourceRecord =>
  source.sourceType === 'ACCOUNT'
    ? { sourceType: 'ACCOUNT', accountId: source.accountId ?? '', currency: source.currency }
    : {
        sourceType: 'REALTIME_FUNDING',
        currency: source.currency,
        ...(source.customerId !== null ? { customerId: source.customerId } : {}),
      };

const transactionDestinationOf = (destination: ResolvedDestination): TransactionDestinationRecord =>
  destination.destinationType === 'ACCOUNT'
    ? { destinationType: 'ACCOUNT', accountId: destination.accountId, currency: destination.currency }
    : { destinationType: 'UMA_ADDRESS', umaAddress: destination.umaAddress, currency: destination.currency };

/**
 * A quote retried under its Idempotency-Key is answered from what its first attempt made (the
 * command id replays it): only for the same request; another one under the key is a 409.
 */
export const requireSameQuoteRequest = (
  recorded: readonly { type: string; data: Record<string, unknown> }[],
  quoteId: string,
  requestFingerprint: string | undefined,
): void => {
  const created = recorded.find((event) => event.type === 'QuoteCreated');
  const stored = created?.data['requestFingerprint'];
  requireSameRequest(typeof stored === 'string' ? stored : undefined, requestFingerprint, quoteId);
};
