// NATS message data of same-currency transfers (POST /transfer-out, POST /transfer-in) and of the
// receipt confirmation of a transaction. Amounts cross NATS as decimal strings of minor units.
import { DomainError } from './errors';

export type TransferOutData = {
  source: { accountId: string };
  destination: { accountId: string; paymentRail?: string };
  /** Minor units of the accounts' currency, as a decimal string; left out, the whole available balance of the source (create-transfer.ts). */
  amount?: string;
  /** The request's Idempotency-Key, when it has one: the transfer's id derives from it, so a retry never moves money twice. */
  idempotencyKey?: string;
};

export type TransferInData = {
  source: { accountId: string };
  destination: { accountId: string };
  /** Optional in the reference, but a transfer-in without one is refused (create-transfer.ts says why). */
  amount?: string;
  idempotencyKey?: string;
};

export type ConfirmReceiptData = { transactionId: string; receiptDeliveryConfirmedAt?: string };

/** The largest transfer amount accepted (the reference's int64 amounts, bounded to what a JSON number holds exactly). */
export const TRANSFER_AMOUNT_MAX = 9_000_000_000_000_000;

/**
 * An Embedded Wallet's money leaves only with its owner's stamp over what leaves and where to
 * (decision 0020). A same-currency transfer has no payload to sign, so a transfer-out from a wallet
 * is refused, pointing to the quote, whose paymentInstructions carry the payloadToSign and whose
 * execution takes Grid-Wallet-Signature. Shared by the platform's route (payments) and the agents'.
 */
export const refuseTransferOutOfWallet = (source: { id: string; type: string }, destinationAccountId: string): void => {
  if (source.type !== 'EMBEDDED_WALLET') return;
  throw new DomainError(
    'INVALID_INPUT',
    'validation',
    `source.accountId ${source.id} is an Embedded Wallet, whose money moves only with its owner's signature: create a quote ` +
      `(POST /quotes with source {sourceType: ACCOUNT, accountId: ${source.id}} and destination {destinationType: ACCOUNT, accountId: ${destinationAccountId}}) ` +
      'and execute it with Grid-Wallet-Signature, a stamp over its paymentInstructions[].accountOrWalletInfo.payloadToSign.',
    { field: 'source.accountId', reason: 'EMBEDDED_WALLET_NEEDS_SIGNED_QUOTE' },
  );
};
