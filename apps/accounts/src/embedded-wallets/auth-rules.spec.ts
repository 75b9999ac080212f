import { DomainError } from '@corridor/contracts';
import { countsTowardLock, decideNewCredential, decideRevokeCredential, otpAccepted, otpCodeFrom, recordAttempt, refuseWhileLocked, signerKeysOf, type Session } from './auth-rules';

const now = new Date('2026-11-25T12:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const codeOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
};

describe('credentials', () => {
  it('given no credential, when one is added, then it needs no signature', () => expect(decideNewCredential([], { type: 'EMAIL_OTP' })).toEqual({ needsSignature: false }));
  it('given a credential, when another is added, then it needs the signed retry', () =>
    expect(decideNewCredential([{ id: 'AuthMethod:1', type: 'PASSKEY', credentialId: 'a' }], { type: 'PASSKEY', credentialId: 'b' })).toEqual({ needsSignature: true }));
  it('given an EMAIL_OTP, when a second is added, then EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', () =>
    expect(codeOf(() => decideNewCredential([{ id: 'AuthMethod:1', type: 'EMAIL_OTP' }], { type: 'EMAIL_OTP' }))).toBe('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS'));
  it('given a passkey, when the same one is added, then PASSKEY_CREDENTIAL_ALREADY_EXISTS', () =>
    expect(codeOf(() => decideNewCredential([{ id: 'AuthMethod:1', type: 'PASSKEY', credentialId: 'a' }], { type: 'PASSKEY', credentialId: 'a' }))).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS'));
  it('given one credential, when it is revoked, then it is refused', () => expect(codeOf(() => decideRevokeCredential([{ id: 'AuthMethod:1', type: 'EMAIL_OTP' }], 'AuthMethod:1'))).toBe('INVALID_INPUT'));
  it('given two credentials, when one is revoked, then it is allowed', () =>
    expect(codeOf(() => decideRevokeCredential([{ id: 'AuthMethod:1', type: 'EMAIL_OTP' }, { id: 'AuthMethod:2', type: 'OAUTH' }], 'AuthMethod:1'))).toBe('none'));
});

describe('sessions', () => {
  const session = (id: string, credentialId: string, expiresAt: Date, revokedAt: Date | null = null): Session => ({ id, credentialId, publicKey: `key-${id}`, expiresAt, revokedAt });
  const sessions = [session('a', 'c1', later(1000)), session('b', 'c2', later(1000)), session('c', 'c2', later(-1)), session('d', 'c2', later(1000), now)];
  it('given active, expired and revoked sessions, then only active ones sign', () => expect(signerKeysOf(sessions, now)).toEqual(['key-a', 'key-b']));
  it('given a credential being revoked, then its own sessions do not sign', () => expect(signerKeysOf(sessions, now, 'c2')).toEqual(['key-a']));
  it('given the service clock past expiry, then no session signs', () => expect(signerKeysOf(sessions, later(2000))).toEqual([]));
});

describe('repeated failures', () => {
  it('given four failures, when a fifth comes, then the key locks and the next attempt is 429 with Retry-After', () => {
    let window = null as ReturnType<typeof recordAttempt> | null;
    for (let attempt = 0; attempt < 5; attempt += 1) window = recordAttempt(window, now);
    expect(window?.lockedUntil).toEqual(later(60_000));
    try {
      refuseWhileLocked(window, later(10_000));
      throw new Error('not refused');
    } catch (error) {
      expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, details: { retryAfterSeconds: 50 } });
    }
  });
  it('given a lock that has passed, then attempts are allowed and counted afresh', () => {
    const locked = { failures: 5, windowStart: now, lockedUntil: later(60_000) };
    expect(() => refuseWhileLocked(locked, later(60_001))).not.toThrow();
    expect(recordAttempt(locked, later(60_001)).failures).toBe(1);
  });
});

describe('what counts toward a lock', () => {
  const refusal = (code: string) => new DomainError(code, 'unauthorized', 'refused');
  it.each(['UNAUTHORIZED', 'WALLET_SIGNATURE_INVALID'])('given %s (a wrong secret or signature), then it counts', (code) => expect(countsTowardLock(refusal(code))).toBe(true));
  it.each(['WALLET_SIGNATURE_MISSING', 'WALLET_SIGNATURE_MALFORMED', 'WALLET_SIGNATURE_BODY_MISMATCH', 'REQUEST_ID_MISSING', 'INVALID_SIGNATURE'])('given %s (a protocol mistake), then it does not', (code) =>
    expect(countsTowardLock(refusal(code))).toBe(false));
  it('given an error that is no refusal, then it does not', () => expect(countsTowardLock(new Error('database down'))).toBe(false));
});

describe('OTP', () => {
  const issued = { digestMatches: true, expiresAt: later(300_000), usedAt: null };
  it('given the issued code, then it is accepted', () => expect(otpAccepted(issued, '123456', false, now)).toBe(true));
  it('given an expired code, then it is refused', () => expect(otpAccepted(issued, '123456', false, later(300_000))).toBe(false));
  it('given a used code, then it is refused', () => expect(otpAccepted({ ...issued, usedAt: now }, '123456', false, now)).toBe(false));
  it('given 000000 on a sandbox platform, then it is accepted', () => expect(otpAccepted({ ...issued, digestMatches: false }, '000000', true, now)).toBe(true));
  it('given 000000 in production, then it is refused', () => expect(otpAccepted({ ...issued, digestMatches: false }, '000000', false, now)).toBe(false));
  it('given the configured length and alphabet, then the code has them', () => {
    expect(otpCodeFrom(() => 3, 8, false)).toBe('33333333');
    expect(otpCodeFrom((below) => below - 1, 4, true)).toBe('9999');
  });
});
