import { DomainError } from '@corridor/contracts';
import type { Cause, OpenAccount } from './internal-account';

// An EMBEDDED_WALLET is self-custodial: the ledger holds or debits one only on a consent its owner
// gave with a stamp of one of the wallet's active sessions (docs/decisions/0020). The stamp is
// verified where it arrives (a quote's execution, a card's signed retry) and leaves a consent
// record bound to the account and to one operation; the ledger's deciders judge a movement
// against that record here, whatever service asks, so no route can forget the rule.
//
// - TRANSACTION: one hold whose id is the consented transaction, of at most the consented amount
//   in its currency, before the consent expires. A hold id is never used twice on an account
//   (HOLD_EXISTS, closed holds included), so the consent is spent by the one hold it allows.
// - CARD: card movements (holds and pulls of CARD_SETTLEMENT) for the one card the wallet was bound
//   to by its signed retry, until the card is closed or the wallet unbound from it.

export type ConsentKind = 'TRANSACTION' | 'CARD';
/** Which consent a movement needs: the transaction its hold is for, or the card it pays. */
export type ConsentReference = { kind: ConsentKind; reference: string };

export type WalletConsent = ConsentReference & {
  consentId: string;
  platformId: string;
  accountId: string;
  /** The most a TRANSACTION consent lets a hold reserve (null for a card). */
  amount: bigint | null;
  currency: string | null;
  expiresAt: Date | null;
  endedAt: Date | null;
};

/** The movement a consent must cover, in the deciders' terms. */
export type ConsentedMovement = {
  verb: 'Hold' | 'Debit';
  holdId?: string;
  amount: bigint;
  currency: string;
  cause: Cause;
  cardId?: string;
};

/**
 * Thrown by a decision on a wallet whose consent was not looked up (the command's consent is
 * undefined): the ledger controller looks the reference up and decides again with what it found.
 * A pure decider cannot read the table, and looking it up for every account would cost every
 * non-wallet movement a query.
 */
export class NeedsConsent extends Error {
  constructor(readonly reference: ConsentReference) {
    super(`The decision needs the wallet consent for ${reference.kind} ${reference.reference}.`);
    this.name = 'NeedsConsent';
  }
}

/** The consent a movement would rest on: the card it pays, or (for a hold) the transaction it reserves for; none for another debit. */
export const consentReferenceOf = (movement: ConsentedMovement): ConsentReference | null => {
  if (movement.cardId !== undefined) return { kind: 'CARD', reference: movement.cardId };
  if (movement.verb === 'Hold' && movement.holdId !== undefined) return { kind: 'TRANSACTION', reference: movement.holdId };
  return null;
};

const refuse = (account: OpenAccount, reason: string, message: string): DomainError =>
  new DomainError('WALLET_CONSENT_REQUIRED', 'forbidden', `Embedded Wallet ${account.accountId}: ${message}`, {
    accountId: account.accountId,
    reason,
  });

const HOW =
  'wallet money moves only with its owner’s stamp: execute a quote from the wallet with Grid-Wallet-Signature, or bind the wallet to a ' +
  'card with its signed retry.';

/** Refuses a movement of a card that the consent does not cover. */
const checkCardConsent = (account: OpenAccount, movement: ConsentedMovement): void => {
  if (movement.cause.kind !== 'CARD_SETTLEMENT')
    throw refuse(account, 'NOT_A_CARD_MOVEMENT', `a card's consent covers card settlements only, not ${movement.cause.kind}.`);
};

/** Refuses a hold larger than, or in another currency than, the transaction consented to (only a hold names a transaction's consent). */
const checkTransactionConsent = (account: OpenAccount, movement: ConsentedMovement, consent: WalletConsent): void => {
  if (consent.currency !== movement.currency || consent.amount === null || movement.amount > consent.amount) {
    throw refuse(
      account,
      'AMOUNT_NOT_CONSENTED',
      `the owner consented to ${consent.amount ?? 0} ${consent.currency ?? ''}, not ${movement.amount} ${movement.currency}.`,
    );
  }
};

/**
 * Nothing for an account that is not an Embedded Wallet. For a wallet: the movement must rest on an
 * active consent of this account and platform, for this movement's card or transaction.
 * `consent` undefined means not looked up yet (NeedsConsent), null means looked up and absent.
 */
export const requireWalletConsent = (
  account: OpenAccount,
  movement: ConsentedMovement,
  consent: WalletConsent | null | undefined,
  now: Date,
): void => {
  if (account.accountType !== 'EMBEDDED_WALLET') return;
  const reference = consentReferenceOf(movement);
  if (reference === null) throw refuse(account, 'NO_CONSENT_APPLIES', `no consent can cover a debit that is not a card's; ${HOW}`);
  if (consent === undefined) throw new NeedsConsent(reference);
  const matches =
    consent?.accountId === account.accountId &&
    consent.platformId === account.platformId &&
    consent.kind === reference.kind &&
    consent.reference === reference.reference;
  if (!consent || !matches)
    throw refuse(account, 'NO_CONSENT', `no consent was given for ${reference.kind} ${reference.reference}; ${HOW}`);
  if (consent.endedAt !== null)
    throw refuse(
      account,
      'CONSENT_ENDED',
      `the consent for ${reference.kind} ${reference.reference} ended at ${consent.endedAt.toISOString()}; ${HOW}`,
    );
  if (consent.expiresAt !== null && consent.expiresAt.getTime() <= now.getTime()) {
    throw refuse(
      account,
      'CONSENT_EXPIRED',
      `the consent for ${reference.kind} ${reference.reference} expired at ${consent.expiresAt.toISOString()}; ${HOW}`,
    );
  }
  if (reference.kind === 'CARD') checkCardConsent(account, movement);
  else checkTransactionConsent(account, movement, consent);
};
