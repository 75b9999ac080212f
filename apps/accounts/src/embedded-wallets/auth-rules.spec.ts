import { DomainError } from '@corridor/contracts';
import {
  admitAttempt,
  countsTowardLock,
  decideNewCredential,
  decideRevokeCredential,
  DEFAULT_FAILURE_POLICY,
  type FailureWindow,
  giveBackAttempt,
  isLastAdmitted,
  lockMsFor,
  otpAccepted,
  otpCodeFrom,
  signerKeysOf,
  type Session,
} from './auth-rules';

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
  it('given no credential, when one is added, then it needs no signature', () =>
    expect(decideNewCredential([], { type: 'EMAIL_OTP' })).toEqual({ needsSignature: false }));
  it('given a credential, when another is added, then it needs the signed retry', () =>
    expect(
      decideNewCredential([{ id: 'AuthMethod:1', type: 'PASSKEY', credentialId: 'a' }], { type: 'PASSKEY', credentialId: 'b' }),
    ).toEqual({ needsSignature: true }));
  it('given an EMAIL_OTP, when a second is added, then EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', () =>
    expect(codeOf(() => decideNewCredential([{ id: 'AuthMethod:1', type: 'EMAIL_OTP' }], { type: 'EMAIL_OTP' }))).toBe(
      'EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS',
    ));
  it('given a passkey, when the same one is added, then PASSKEY_CREDENTIAL_ALREADY_EXISTS', () =>
    expect(
      codeOf(() =>
        decideNewCredential([{ id: 'AuthMethod:1', type: 'PASSKEY', credentialId: 'a' }], { type: 'PASSKEY', credentialId: 'a' }),
      ),
    ).toBe('PASSKEY_CREDENTIAL_ALREADY_EXISTS'));
  it('given one credential, when it is revoked, then it is refused', () =>
    expect(codeOf(() => decideRevokeCredential([{ id: 'AuthMethod:1', type: 'EMAIL_OTP' }], 'AuthMethod:1'))).toBe('INVALID_INPUT'));
  it('given two credentials, when one is revoked, then it is allowed', () =>
    expect(
      codeOf(() =>
        decideRevokeCredential(
          [
            { id: 'AuthMethod:1', type: 'EMAIL_OTP' },
            { id: 'AuthMethod:2', type: 'OAUTH' },
          ],
          'AuthMethod:1',
        ),
      ),
    ).toBe('none'));
});

describe('sessions', () => {
  const session = (id: string, credentialId: string, expiresAt: Date, revokedAt: Date | null = null): Session => ({
    id,
    credentialId,
    publicKey: `key-${id}`,
    expiresAt,
    revokedAt,
  });
  const sessions = [
    session('a', 'c1', later(1000)),
    session('b', 'c2', later(1000)),
    session('c', 'c2', later(-1)),
    session('d', 'c2', later(1000), now),
  ];
  it('given active, expired and revoked sessions, then only active ones sign', () =>
    expect(signerKeysOf(sessions, now)).toEqual(['key-a', 'key-b']));
  it('given a credential being revoked, then its own sessions do not sign', () =>
    expect(signerKeysOf(sessions, now, 'c2')).toEqual(['key-a']));
  it('given the service clock past expiry, then no session signs', () => expect(signerKeysOf(sessions, later(2000))).toEqual([]));
});

describe('repeated failures', () => {
  const policy = DEFAULT_FAILURE_POLICY;
  /** The window after `count` attempts admitted one after the other at `at`. */
  const admitted = (count: number, at = now, from: FailureWindow | null = null): FailureWindow => {
    let window = from;
    for (let attempt = 0; attempt < count; attempt += 1) window = admitAttempt(window, at, policy);
    return window as FailureWindow;
  };

  it('given four attempts, when a fifth is admitted, then it is still judged and starts the lock; the next is 429 with Retry-After', () => {
    expect(admitted(4).lockedUntil).toBeNull();
    const fifth = admitted(5);
    expect(fifth).toMatchObject({ failures: 5, lockedUntil: later(60_000), locks: 1 });
    expect(isLastAdmitted(fifth)).toBe(true);
    expect(isLastAdmitted(admitted(4))).toBe(false);
    expect(() => admitAttempt(fifth, later(10_000))).toThrow(
      expect.objectContaining({ code: 'RATE_LIMITED', status: 429, details: { retryAfterSeconds: 50 } }),
    );
  });

  it('given attempts taken one by one under the row lock, then however many come at once only five are admitted', () => {
    let window: FailureWindow | null = null;
    let admittedCount = 0;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      try {
        window = admitAttempt(window, now, policy);
        admittedCount += 1;
      } catch (error) {
        expect(error).toMatchObject({ code: 'RATE_LIMITED' });
      }
    }
    expect(admittedCount).toBe(5);
  });

  it('given a served lock, then the window starts afresh and the next lock lasts twice as long, then four times, up to an hour', () => {
    const first = admitted(5);
    const second = admitted(5, later(60_001), first);
    expect(second).toMatchObject({ locks: 2, lockedUntil: later(60_001 + 120_000) });
    const third = admitted(5, later(200_000), second);
    expect(third).toMatchObject({ locks: 3, lockedUntil: later(200_000 + 240_000) });
    expect(lockMsFor(7, policy)).toBe(60 * 60_000);
    expect(lockMsFor(30, policy)).toBe(60 * 60_000);
  });

  it('given a lock served and a day without attempts, then locks start again from 60 s', () => {
    const dayLater = later(24 * 60 * 60_000 + 1);
    expect(admitted(5, dayLater, admitted(5))).toMatchObject({ locks: 1, lockedUntil: new Date(dayLater.getTime() + 60_000) });
  });

  it('given a window older than 15 minutes without a lock, then counting starts afresh', () =>
    expect(admitted(1, later(15 * 60_000), admitted(4))).toMatchObject({ failures: 1, locks: 0 }));

  it('given an attempt that guessed nothing, then it gives its place back, and the lock it started with it', () => {
    expect(giveBackAttempt(admitted(3))).toMatchObject({ failures: 2, lockedUntil: null });
    expect(giveBackAttempt(admitted(5))).toMatchObject({ failures: 4, lockedUntil: null, locks: 0 });
    expect(() => admitAttempt(giveBackAttempt(admitted(5)), now)).not.toThrow();
  });
});

describe('what counts toward a lock', () => {
  const refusal = (code: string) => new DomainError(code, 'unauthorized', 'refused');
  it.each(['UNAUTHORIZED', 'WALLET_SIGNATURE_INVALID'])('given %s (a wrong secret or signature), then it counts', (code) =>
    expect(countsTowardLock(refusal(code))).toBe(true),
  );
  it.each([
    'WALLET_SIGNATURE_MISSING',
    'WALLET_SIGNATURE_MALFORMED',
    'WALLET_SIGNATURE_BODY_MISMATCH',
    'REQUEST_ID_MISSING',
    'INVALID_SIGNATURE',
  ])('given %s (a protocol mistake), then it does not', (code) => expect(countsTowardLock(refusal(code))).toBe(false));
  it('given an error that is no refusal, then it does not', () => expect(countsTowardLock(new Error('database down'))).toBe(false));
});

describe('OTP', () => {
  const issued = { digestMatches: true, expiresAt: later(300_000), usedAt: null };
  it('given the issued code, then it is accepted', () => expect(otpAccepted(issued, '123456', false, now)).toBe(true));
  it('given an expired code, then it is refused', () => expect(otpAccepted(issued, '123456', false, later(300_000))).toBe(false));
  it('given a used code, then it is refused', () => expect(otpAccepted({ ...issued, usedAt: now }, '123456', false, now)).toBe(false));
  it('given 000000 on a sandbox platform, then it is accepted', () =>
    expect(otpAccepted({ ...issued, digestMatches: false }, '000000', true, now)).toBe(true));
  it('given 000000 in production, then it is refused', () =>
    expect(otpAccepted({ ...issued, digestMatches: false }, '000000', false, now)).toBe(false));
  it('given the configured length and alphabet, then the code has them', () => {
    expect(otpCodeFrom(() => 3, 8, false)).toBe('33333333');
    expect(otpCodeFrom((below) => below - 1, 4, true)).toBe('9999');
  });
});
