import { DomainError } from '@corridor/contracts';

// Pure rules of credentials, sessions and repeated failures.

export type CredentialSummary = { id: string; type: 'OAUTH' | 'EMAIL_OTP' | 'PASSKEY'; credentialId?: string | null };

/** One EMAIL_OTP per account, distinct passkeys; whether the new credential needs the signed retry. */
export const decideNewCredential = (
  existing: readonly CredentialSummary[],
  next: { type: CredentialSummary['type']; credentialId?: string },
): { needsSignature: boolean } => {
  if (next.type === 'EMAIL_OTP' && existing.some((credential) => credential.type === 'EMAIL_OTP')) {
    throw new DomainError(
      'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS',
      'validation',
      'This account already has an EMAIL_OTP credential; an account has at most one.',
    );
  }
  if (
    next.type === 'PASSKEY' &&
    existing.some((credential) => credential.type === 'PASSKEY' && credential.credentialId === next.credentialId)
  ) {
    throw new DomainError('PASSKEY_CREDENTIAL_ALREADY_EXISTS', 'validation', 'This passkey is already registered on the account.');
  }
  return { needsSignature: existing.length > 0 };
};

/** The last credential of an account cannot be revoked: the wallet would have no way in. */
export const decideRevokeCredential = (existing: readonly CredentialSummary[], credentialId: string): void => {
  if (existing.length <= 1 && existing.some((credential) => credential.id === credentialId)) {
    throw new DomainError(
      'INVALID_INPUT',
      'validation',
      'This is the account’s last credential; add another credential before revoking it.',
      { field: 'id' },
    );
  }
};

export type Session = { id: string; credentialId: string; publicKey: string; expiresAt: Date; revokedAt: Date | null };
export const isActive = (session: Session, now: Date): boolean => session.revokedAt === null && session.expiresAt.getTime() > now.getTime();

/** Keys that may sign: every active session, or (revoking a credential) those of other credentials only. */
export const signerKeysOf = (sessions: readonly Session[], now: Date, exceptCredentialId?: string): string[] =>
  sessions.filter((session) => isActive(session, now) && session.credentialId !== exceptCredentialId).map((session) => session.publicKey);

/**
 * A key's failures in its current window. locks: how many locks in a row this key has served
 * (each lasts twice the one before, up to maxLockMs); it falls back to 0 after a success or a day
 * without a new window.
 */
export type FailureWindow = { failures: number; windowStart: Date; lockedUntil: Date | null; locks: number };
export type FailurePolicy = { maxFailures: number; windowMs: number; lockMs: number; maxLockMs: number; lockDecayMs: number };
export const DEFAULT_FAILURE_POLICY: FailurePolicy = {
  maxFailures: 5,
  windowMs: 15 * 60_000,
  lockMs: 60_000,
  maxLockMs: 60 * 60_000,
  lockDecayMs: 24 * 60 * 60_000,
};

/**
 * Which refusals count toward a lock: a wrong secret (an OTP, OIDC token or passkey assertion:
 * UNAUTHORIZED) or a stamp that does not verify by an allowed key (WALLET_SIGNATURE_INVALID), the
 * refusals a guesser collects. Protocol mistakes (a missing header, a malformed stamp, an unknown or
 * used Request-Id, another body) guess nothing and do not count, so a client retrying after a lost
 * answer is not locked out.
 */
export const countsTowardLock = (error: unknown): boolean =>
  error instanceof DomainError && (error.code === 'UNAUTHORIZED' || error.code === 'WALLET_SIGNATURE_INVALID');

/** 429 RATE_LIMITED with Retry-After while a key (a credential's verify or challenge, a wallet's signatures) is locked. */
export const refuseWhileLocked = (window: FailureWindow | null, now: Date): void => {
  if (!window?.lockedUntil || window.lockedUntil.getTime() <= now.getTime()) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((window.lockedUntil.getTime() - now.getTime()) / 1000));
  throw new DomainError('RATE_LIMITED', 'rate_limited', `Too many attempts; retry after ${retryAfterSeconds} s.`, { retryAfterSeconds });
};

/** The n-th lock in a row lasts lockMs · 2^(n−1), never more than maxLockMs. */
export const lockMsFor = (lockNumber: number, policy: FailurePolicy): number =>
  Math.min(policy.maxLockMs, policy.lockMs * 2 ** Math.min(Math.max(lockNumber - 1, 0), 30));

const lockedAtLimit = (window: FailureWindow, now: Date, policy: FailurePolicy): FailureWindow =>
  window.failures < policy.maxFailures
    ? window
    : { ...window, locks: window.locks + 1, lockedUntil: new Date(now.getTime() + lockMsFor(window.locks + 1, policy)) };

/**
 * Admits one more attempt under a key, counted as a failure before it is judged (a success then
 * clears the key): read and written under the key's row lock, so concurrent guesses take their
 * places one by one and at most maxFailures of them in a window are ever judged. The attempt that
 * reaches the limit starts the lock; while locked, 429 with Retry-After. A window starts afresh
 * after windowMs or once its lock has been served; the count of locks in a row carries over.
 */
export const admitAttempt = (window: FailureWindow | null, now: Date, policy: FailurePolicy = DEFAULT_FAILURE_POLICY): FailureWindow => {
  refuseWhileLocked(window, now);
  const elapsedMs = window ? now.getTime() - window.windowStart.getTime() : Number.POSITIVE_INFINITY;
  if (window && window.failures > 0 && window.lockedUntil === null && elapsedMs < policy.windowMs)
    return lockedAtLimit({ ...window, failures: window.failures + 1 }, now, policy);
  const locks = window && elapsedMs < policy.lockDecayMs ? window.locks : 0;
  return lockedAtLimit({ failures: 1, windowStart: now, lockedUntil: null, locks }, now, policy);
};

/**
 * Gives back the place of an admitted attempt whose refusal guessed nothing (countsTowardLock is
 * false: a protocol mistake, an outage). If that attempt was the one that reached the limit, the
 * lock it started goes with it. Never more judged guesses than admitAttempt allows: only unjudged
 * attempts give their place back.
 */
export const giveBackAttempt = (window: FailureWindow, policy: FailurePolicy = DEFAULT_FAILURE_POLICY): FailureWindow => {
  const failures = Math.max(0, window.failures - 1);
  if (window.lockedUntil !== null && window.failures >= policy.maxFailures && failures < policy.maxFailures) {
    return { ...window, failures, lockedUntil: null, locks: Math.max(0, window.locks - 1) };
  }
  return { ...window, failures };
};

/** True when an attempt admitted as this window was the last one the window judges: a wrong OTP then dies with it. */
export const isLastAdmitted = (window: FailureWindow, policy: FailurePolicy = DEFAULT_FAILURE_POLICY): boolean =>
  window.failures >= policy.maxFailures;

/** An OTP code from the configured alphabet and length; pick(n) is a uniform integer below n (injected, so this stays pure). */
export const otpCodeFrom = (pick: (below: number) => number, length: number, alphanumeric: boolean): string => {
  const alphabet = alphanumeric ? 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789' : '0123456789';
  return Array.from({ length }, () => alphabet[pick(alphabet.length)]).join('');
};

export const SANDBOX_OTP = '000000';

/** A code is right when it matches the issued one, unexpired and unused; sandbox platforms also take 000000. */
export const otpAccepted = (
  otp: { digestMatches: boolean; expiresAt: Date; usedAt: Date | null } | null,
  code: string,
  sandbox: boolean,
  now: Date,
): boolean => {
  if (!otp || otp.usedAt || otp.expiresAt.getTime() <= now.getTime()) return false;
  return otp.digestMatches || (sandbox && code === SANDBOX_OTP);
};
