// Given what the gateway knows about a Basic authentication attempt, when it arrives, then it is
// served from the cache, verified, refused 401 from memory, or refused 429 before the NATS hop.
import { DomainError } from '@corridor/contracts';
import { type AttemptFacts, admitAttempt, failureOf, limitedError } from './auth-attempts';

const fresh: AttemptFacts = { cached: false, knownGood: false, knownBad: false, addressBlockedMs: 0, clientBlockedMs: 0 };

describe('admitAttempt', () => {
  it('given a cached credential, uses it even while its address and client id are blocked', () =>
    expect(admitAttempt({ ...fresh, cached: true, addressBlockedMs: 5_000, clientBlockedMs: 5_000 })).toEqual({ kind: 'use-cached' }));

  it('given nothing known, verifies', () => expect(admitAttempt(fresh)).toEqual({ kind: 'verify' }));

  it('given a blocked address, refuses 429 with the seconds left, rounded up', () =>
    expect(admitAttempt({ ...fresh, addressBlockedMs: 1_200, clientBlockedMs: 9_000 })).toEqual({
      kind: 'limited',
      scope: 'address',
      retryAfterSeconds: 2,
    }));

  it('given a blocked client id (the address is fine), refuses 429 for the client id', () =>
    expect(admitAttempt({ ...fresh, clientBlockedMs: 30_000 })).toEqual({ kind: 'limited', scope: 'client', retryAfterSeconds: 30 }));

  it('given a blocked client id, still verifies a credential that verified before (the owner is not locked out)', () =>
    expect(admitAttempt({ ...fresh, knownGood: true, clientBlockedMs: 30_000, addressBlockedMs: 30_000 })).toEqual({ kind: 'verify' }));

  it('given a pair that just failed, refuses 401 without a hop; the limits come first', () => {
    expect(admitAttempt({ ...fresh, knownBad: true })).toEqual({ kind: 'refuse-known-bad' });
    expect(admitAttempt({ ...fresh, knownBad: true, addressBlockedMs: 10 })).toMatchObject({ kind: 'limited', retryAfterSeconds: 1 });
  });
});

describe('failureOf', () => {
  it('counts wrong credentials against the address and the client id, and remembers the pair', () =>
    expect(failureOf(new DomainError('UNAUTHORIZED', 'unauthorized', 'no'), 'verify')).toEqual({
      address: true,
      client: true,
      rememberPair: true,
      reason: 'wrong_credentials',
    }));

  it('counts a repeat of a known-bad pair against both, without remembering it again', () =>
    expect(failureOf(undefined, 'known-bad')).toEqual({ address: true, client: true, rememberPair: false, reason: 'known_bad' }));

  it('counts an unreadable header against the address only', () =>
    expect(failureOf(new DomainError('UNAUTHORIZED', 'unauthorized', 'malformed'), 'parse')).toMatchObject({
      address: true,
      client: false,
      reason: 'malformed',
    }));

  it('does not count an unavailable or overloaded platform service, or a bug', () => {
    expect(failureOf(new DomainError('SERVICE_UNAVAILABLE', 'unavailable', 'down'), 'verify')).toBeNull();
    expect(failureOf(new DomainError('RATE_LIMITED', 'rate_limited', 'queue full'), 'verify')).toBeNull();
    expect(failureOf(new Error('boom'), 'verify')).toBeNull();
  });
});

describe('limitedError', () => {
  it('is a 429 RATE_LIMITED naming what is limited, with retryAfterSeconds for the Retry-After header', () => {
    const error = limitedError({ kind: 'limited', scope: 'client', retryAfterSeconds: 7 });
    expect(error.toBody()).toMatchObject({ status: 429, code: 'RATE_LIMITED', details: { retryAfterSeconds: 7 } });
    expect(error.message).toContain('for this client id');
  });
});
