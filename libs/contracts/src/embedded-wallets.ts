// Embedded Wallet auth (reference section (k)): credentials, challenges, sessions and the
// two-step signed retry. The accounts service owns them; these are the wire shapes and the
// request data that cross the gateway → accounts hop.
import { DomainError } from './errors';

export type AuthMethodType = 'OAUTH' | 'EMAIL_OTP' | 'PASSKEY';
export const AUTH_METHOD_TYPES: readonly AuthMethodType[] = ['OAUTH', 'EMAIL_OTP', 'PASSKEY'];

/** Headers of the signed retry, passed through from the HTTP request exactly as received. */
export type WalletSignatureHeaders = { walletSignature?: string; requestId?: string };

export type AuthMethodWire = {
  id: string;
  accountId: string;
  type: AuthMethodType;
  credentialId?: string;
  nickname: string;
  createdAt: string;
  updatedAt: string;
};
export type AuthMethodResponseWire = AuthMethodWire & { otpEncryptionTargetBundle?: string };
export type AuthSessionWire = AuthMethodWire & { encryptedSessionSigningKey?: string; expiresAt: string };
export type SignedRequestChallengeWire = { payloadToSign: string; requestId: string; expiresAt: string };
export type AuthSignedRequestChallengeWire = SignedRequestChallengeWire & { type: AuthMethodType };

/** A reply that is either the operation's result or the first leg's 202 challenge. */
export type SignedReply<T> =
  { status: 200 | 201 | 204; body?: T } | { status: 202; body: SignedRequestChallengeWire | AuthSignedRequestChallengeWire };

export type CreateAuthCredentialData = WalletSignatureHeaders & { body: Record<string, unknown> };
export type ListAuthCredentialsData = { accountId: string };
export type AuthCredentialIdData = WalletSignatureHeaders & { credentialId: string; body?: Record<string, unknown> };
export type ListAuthSessionsData = { accountId: string };
export type AuthSessionIdData = WalletSignatureHeaders & { sessionId: string; body?: Record<string, unknown> };
export type SignedInternalAccountData = WalletSignatureHeaders & { accountId: string; body: Record<string, unknown> };
export type SandboxMailboxData = { accountId: string };
/**
 * Wallet money committed outside a quote: a card funded by a wallet (POST /cards, PATCH /cards/{id})
 * or a transfer out of one (POST /transfer-out, POST /agents/me/transfer-out). If one of accountIds
 * (the sources the card has and asks for, or the transfer's source) is a wallet, its signed retry;
 * else {proceed: true}. On the signed retry the wallet consents (decision 0020): to fund the card, if
 * it is among bindAccountIds (the card's sources after the change); or to the transfer's one hold
 * of body.amount. A new card's or transfer's id is fixed on leg 1, named in payloadToSign, and
 * answered in WalletAuthorization.resourceId for the card or transfer to be made with.
 */
export type WalletFundedChangeData = WalletSignatureHeaders & {
  accountIds: string[];
  bindAccountIds: string[];
  operation: 'CREATE_CARD' | 'UPDATE_CARD' | 'TRANSFER_OUT';
  targetId: string;
  body: Record<string, unknown>;
};
/**
 * PATCH /customers/{id}: an email change of a customer with a wallet
 * needs the wallet's signed retry; {proceed: true} lets the update go on.
 */
export type CustomerEmailChangeData = WalletSignatureHeaders & { customerId: string; body: Record<string, unknown> };
/**
 * accounts' answer to customerEmailChange and walletFundedChange: go on with the change; on a signed
 * retry, the request it used, which the gateway gives back (releaseSignedRequest) when the service
 * that applies the change refuses it.
 */
export type WalletAuthorization = { proceed: true; consumedRequestId?: string; resourceId?: string };
/** A signed request whose change was refused downstream: unused again, so the same signed retry may be sent again. */
export type ReleaseSignedRequestData = { requestId: string };
/**
 * A refusal (4xx) comes before anything is changed, so the signed request that authorized the
 * change is given back; after a failure of unknown outcome (5xx, a timeout) it stays used.
 */
export const givesSignedRequestBack = (error: unknown): boolean =>
  error instanceof DomainError && error.status >= 400 && error.status < 500;
/**
 * The single signed call of quote execution: a stamp over a quote's payloadToSign by an active
 * session of the wallet. With grant (payments, as the quote executes), the verified stamp leaves the
 * wallet's consent to that transaction's hold of at most amount (minor units) in currency, which
 * the ledger requires (decision 0020); without it (agents, before recording an action), a check only.
 */
export type VerifyWalletStampData = {
  accountId: string;
  payloadToSign: string;
  walletSignature?: string;
  grant?: { transactionId: string; amount: string; currency: string };
};
export type SandboxMailWire = { to: string; subject: string; otpCode: string; sentAt: string };

/** P-256 public key, uncompressed SEC1 hex, as the reference's challenge/refresh/export bodies carry it. */
export const CLIENT_PUBLIC_KEY_PATTERN = /^04[0-9a-fA-F]{128}$/;

/** The reference's 401 codes for the signed retry. */
export type WalletSignatureErrorCode =
  | 'WALLET_SIGNATURE_MISSING'
  | 'WALLET_SIGNATURE_MALFORMED'
  | 'WALLET_SIGNATURE_BODY_MISMATCH'
  | 'WALLET_SIGNATURE_INVALID'
  | 'REQUEST_ID_MISSING'
  | 'INVALID_SIGNATURE';
