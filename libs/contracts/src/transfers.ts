// NATS message data of same-currency transfers (POST /transfer-out, POST /transfer-in) and of the
// receipt confirmation of a transaction. Amounts cross NATS as decimal strings of minor units.

export type TransferOutData = {
  source: { accountId: string };
  destination: { accountId: string; paymentRail?: string };
  /**
   * Minor units of the accounts' currency, as a decimal string; left out, the whole available balance of the source (create-transfer.ts).
   */
  amount?: string;
  /** The request's Idempotency-Key, when it has one: the transfer's id derives from it, so a retry never moves money twice. */
  idempotencyKey?: string;
  /**
   * Set by the gateway or the agents service (never by a client) when an Embedded Wallet's owner
   * signed for the transfer: the transfer takes the id their consent names (decision 0020).
   */
  transactionId?: string;
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
