import type { CurrencyAmountWire } from './money';

// NATS message data of the accounts service (the ledger). Amounts travel as decimal strings of
// minor units so no hop can round them; replies are the reference InternalAccount wire object.

export type InternalAccountTypeWire = 'INTERNAL_FIAT' | 'INTERNAL_CRYPTO' | 'EMBEDDED_WALLET';
export type InternalAccountStatusWire = 'PENDING' | 'ACTIVE' | 'CLOSED' | 'FROZEN';
export type LedgerCauseKind = 'FUNDING' | 'TRANSACTION' | 'CARD_SETTLEMENT' | 'TRANSFER' | 'ADJUSTMENT';

/**
 * How to pay into an account: bank details or a wallet address (the reference's
 * Payment<Currency>AccountInfo variants, told apart by accountType) and, for bank rails, the
 * reference the payer quotes.
 */
export type PaymentInstructionsWire = {
  instructionsNotes?: string;
  isPlatformAccount?: boolean;
  accountOrWalletInfo: { accountType: string } & Record<string, unknown>;
};

export type InternalAccountWire = {
  id: string;
  customerId?: string;
  type: InternalAccountTypeWire;
  status: InternalAccountStatusWire;
  balance: CurrencyAmountWire;
  totalBalance: CurrencyAmountWire;
  fundingPaymentInstructions: PaymentInstructionsWire[];
  privateEnabled?: boolean;
  createdAt: string;
  updatedAt: string;
};

/** Every ledger command names the caller's operation id: a retry with the same id is a no-op. */
type Movement = {
  accountId: string;
  operationId: string;
  amount: string;
  currency: string;
  cause: { kind: LedgerCauseKind; id: string };
  /** A system account (`SystemAccount:<KIND>:<CUR>`); defaults from the cause kind when absent. */
  counterAccountId?: string;
};

/**
 * cardId: the card a card's hold or pull is for. An EMBEDDED_WALLET is held or debited only on its
 * owner's consent (decision 0020): for a card, the card's; for a hold without a card, the consent to
 * the transaction the hold id names (given when its quote executed with Grid-Wallet-Signature).
 */
type ConsentedMovement = Movement & { cardId?: string };

export type CreditData = Movement;
export type DebitData = ConsentedMovement;
export type HoldData = ConsentedMovement & {
  holdId: string;
  /**
   * Settle the hold in full in the same append, as this settle operation (an instant rail): one
   * request instead of a hold and a settle. Idempotent per operation id exactly as the two would be.
   */
  settleOperationId?: string;
};
/** keepRemainder: settle `amount` and leave the rest of the hold reserved for a later settle (a card's partial clearing). */
export type SettleHoldData = { accountId: string; operationId: string; holdId: string; amount?: string; keepRemainder?: boolean };
export type ReleaseHoldData = { accountId: string; operationId: string; holdId: string };

export type InternalAccountIdData = { accountId: string };
export type ListInternalAccountsData = {
  customerId?: string;
  currency?: string;
  type?: InternalAccountTypeWire;
  limit: number;
  cursor?: string;
  /** A Corridor extension (decision 0039): the accounts opened by then, each with the ledger's balance at that time. */
  asOf?: string;
};
export type ListPlatformInternalAccountsData = { currency?: string; type?: InternalAccountTypeWire; asOf?: string };
export type FundInternalAccountData = { accountId: string; amount: number };
/**
 * What a new customer needs before POST /customers may answer (decision 0027): an ACTIVE internal
 * account per currency and, where the platform enables Embedded Wallets and the customer has an
 * email, its wallet. Idempotent; answers the ids of the accounts the customer now has.
 */
export type OpenCustomerAccountsData = { customerId: string; currencies: string[]; email?: string; embeddedWallets: boolean };
export type OpenCustomerAccountsReply = { accountIds: string[] };
/** Reply: InternalAccountWire as of that stream position (balances then, updatedAt = that event's time). */
export type RenderInternalAccountAtData = { accountId: string; streamPosition: number };

/** SandboxFundRequest.amount bounds of the reference: exclusiveMinimum 0, maximum 100,000,000,000 minor units. */
export const SANDBOX_FUND_AMOUNT_MAX = 100_000_000_000;
