import { DomainError, type WalletSignatureErrorCode, type WalletSignatureHeaders } from '@corridor/contracts';
import { parseStamp, type Stamp, verifyStamp } from './wallet-crypto';

// The one two-step signed retry of reference section (k), as pure rules: which leg a request is,
// and whether a retry may complete the pending request it names. The store persists pending
// requests and consumes them once; every signed operation goes through these two functions.

export const CHALLENGE_TTL_MS = 5 * 60_000;

/**
 * The reference's sandbox value for Grid-Wallet-Signature (section (f)): on a SANDBOX platform it
 * stands in for a stamp, so sandbox clients can drive signed operations without a key. The rest of
 * the signed retry still holds (Request-Id of leg 1, same body, used once). Production platforms
 * read it as what it is, a malformed stamp.
 */
export const SANDBOX_SIGNATURE = 'sandbox-valid-signature';

/** Whether a request offers the sandbox signature, so the platform's environment is worth looking up. */
export const offersSandboxSignature = (walletSignature: string | undefined): boolean => walletSignature?.trim() === SANDBOX_SIGNATURE;

/** The sandbox signature counts as a valid stamp on sandbox platforms only. */
export const sandboxSignatureAccepted = (walletSignature: string | undefined, sandbox: boolean): boolean =>
  sandbox && offersSandboxSignature(walletSignature);

/** What leg 1 persisted: the operation, the resource it acts on, the bound body and the payload to sign. */
export type PendingRequest = {
  requestId: string;
  platformId: string;
  accountId: string;
  operation: string;
  targetId: string;
  bodyDigest: string;
  payloadToSign: string;
  expiresAt: Date;
  usedAt: Date | null;
  /** Data leg 1 decided and leg 2 needs (e.g. the TEK public key of an OTP verification). */
  bound: Record<string, unknown>;
};

/** A parsed stamp, or the sandbox signature where the platform's environment accepts it. */
export type Signature = Stamp | typeof SANDBOX_SIGNATURE;
export type Leg = { leg: 'challenge' } | { leg: 'retry'; stamp: Signature; requestId: string };

const unauthorized = (code: WalletSignatureErrorCode, message: string): DomainError => new DomainError(code, 'unauthorized', message);

/** Neither signature header: the first leg of a signed retry. */
export const isFirstLeg = (headers: WalletSignatureHeaders): boolean => !headers.walletSignature?.trim() && !headers.requestId?.trim();

/**
 * No headers: leg 1. Both: leg 2 with a parsed stamp (or, on a sandbox platform, the sandbox
 * signature). One of the two: 401 naming the missing one.
 */
export const legOf = (headers: WalletSignatureHeaders, sandbox = false): Leg => {
  const signature = headers.walletSignature?.trim() || undefined;
  const requestId = headers.requestId?.trim() || undefined;
  if (!signature && !requestId) return { leg: 'challenge' };
  if (!signature)
    throw unauthorized(
      'WALLET_SIGNATURE_MISSING',
      'The signed retry needs a Grid-Wallet-Signature header along with Request-Id: a stamp over payloadToSign made with a session key.',
    );
  if (!requestId)
    throw unauthorized(
      'REQUEST_ID_MISSING',
      'The signed retry needs the Request-Id header: echo the requestId of the 202 challenge along with Grid-Wallet-Signature.',
    );
  if (sandboxSignatureAccepted(signature, sandbox)) return { leg: 'retry', stamp: SANDBOX_SIGNATURE, requestId };
  const stamp = parseStamp(signature);
  if (!stamp) {
    throw unauthorized(
      'WALLET_SIGNATURE_MALFORMED',
      'Grid-Wallet-Signature must be base64url (no padding) of {"publicKey": compressed P-256 hex, "scheme": ' +
        '"SIGNATURE_SCHEME_TK_API_P256", "signature": DER hex}.',
    );
  }
  return { leg: 'retry', stamp, requestId };
};

export type RetryCheck = {
  pending: PendingRequest | null;
  operation: string;
  targetId: string;
  platformId: string;
  bodyDigest: string;
  stamp: Signature;
  /** Compressed public keys allowed to sign this operation (active sessions, or the TEK). */
  signerKeys: readonly string[];
  now: Date;
};

/** Throws the reference's 401 when the retry cannot complete its pending request; returns it otherwise. */
export const checkRetry = (check: RetryCheck): PendingRequest => {
  const { pending, now } = check;
  if (!pending || pending.platformId !== check.platformId || pending.operation !== check.operation || pending.targetId !== check.targetId) {
    throw unauthorized(
      'INVALID_SIGNATURE',
      'Request-Id does not name a pending challenge of this operation on this resource; start again without the signature headers.',
    );
  }
  if (pending.usedAt)
    throw unauthorized(
      'INVALID_SIGNATURE',
      `${pending.requestId} was already used; a requestId completes one request only. Start again without the signature headers.`,
    );
  if (pending.expiresAt.getTime() <= now.getTime()) {
    throw unauthorized(
      'INVALID_SIGNATURE',
      `${pending.requestId} expired at ${pending.expiresAt.toISOString()}; start again without the signature headers.`,
    );
  }
  if (pending.bodyDigest !== check.bodyDigest) {
    throw unauthorized(
      'WALLET_SIGNATURE_BODY_MISMATCH',
      'The retry body differs from the body of the first call; resend exactly the same body with the signature headers.',
    );
  }
  // legOf admits the sandbox signature only on sandbox platforms: it stands for a valid stamp of an allowed key.
  if (check.stamp === SANDBOX_SIGNATURE) return pending;
  if (!check.signerKeys.includes(check.stamp.publicKey)) {
    throw unauthorized(
      'WALLET_SIGNATURE_INVALID',
      'The stamp publicKey is not the key of an active session allowed to sign this request (or the TEK of this verification).',
    );
  }
  if (!verifyStamp(check.stamp, pending.payloadToSign)) {
    throw unauthorized(
      'WALLET_SIGNATURE_INVALID',
      'The stamp signature does not verify over payloadToSign with its publicKey; sign the exact payloadToSign string.',
    );
  }
  return pending;
};
