import { DomainError } from '@corridor/contracts';

// The rules of a Basic authentication attempt (decision 0022), pure: the gateway gathers the facts
// (its caches and the failure counters in Redis), these decide. A wrong secret costs the platform
// service a 16 MiB scrypt; who pays for the next one is decided here, before the NATS hop.

/** What the gateway knows about an attempt before asking the platform service. */
export type AttemptFacts = {
  /** This exact credential verified a moment ago (the credential cache): no hop at all. */
  cached: boolean;
  /** This exact credential verified before, longer ago: its owner is not held back by others' failures. */
  knownGood: boolean;
  /** This exact pair failed a moment ago (the negative cache): answered 401 without a hop. */
  knownBad: boolean;
  /** Milliseconds until the source address, and the client id, may fail again (0: under their limit). */
  addressBlockedMs: number;
  clientBlockedMs: number;
};

export type AttemptDecision =
  | { kind: 'use-cached' }
  | { kind: 'verify' }
  | { kind: 'refuse-known-bad' }
  | { kind: 'limited'; scope: 'address' | 'client'; retryAfterSeconds: number };

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * In order: a cached credential is used; a credential that verified before goes to verification
 * whatever the counters say (a flood against a client id must not lock its owner out); a blocked
 * address, then a blocked client id, is refused 429; a pair that just failed is refused 401 from
 * memory; anything else is verified.
 */
export const admitAttempt = (facts: AttemptFacts): AttemptDecision => {
  if (facts.cached) return { kind: 'use-cached' };
  if (facts.knownGood) return { kind: 'verify' };
  if (facts.addressBlockedMs > 0) return { kind: 'limited', scope: 'address', retryAfterSeconds: seconds(facts.addressBlockedMs) };
  if (facts.clientBlockedMs > 0) return { kind: 'limited', scope: 'client', retryAfterSeconds: seconds(facts.clientBlockedMs) };
  if (facts.knownBad) return { kind: 'refuse-known-bad' };
  return { kind: 'verify' };
};

/** How a failed attempt is counted: against the address, the client id, and whether the pair is remembered as bad. */
export type FailureCount = {
  address: boolean;
  client: boolean;
  rememberPair: boolean;
  reason: 'wrong_credentials' | 'known_bad' | 'malformed';
};

/**
 * What counts as a failure: the platform service said the credentials are wrong (401), or the pair
 * was already known to be wrong, or the header could not be read (no client id to count). An
 * unavailable or overloaded platform service (503, 429, a timeout) is not the caller's failure:
 * it is neither counted nor remembered, so an outage never locks honest clients out.
 */
export const failureOf = (error: unknown, stage: 'parse' | 'known-bad' | 'verify'): FailureCount | null => {
  if (stage === 'parse') return { address: true, client: false, rememberPair: false, reason: 'malformed' };
  if (stage === 'known-bad') return { address: true, client: true, rememberPair: false, reason: 'known_bad' };
  if (error instanceof DomainError && error.status === 401)
    return { address: true, client: true, rememberPair: true, reason: 'wrong_credentials' };
  return null;
};

/** The 429 of a limited attempt, with the reference's body; Retry-After comes from retryAfterSeconds. */
export const limitedError = (decision: Extract<AttemptDecision, { kind: 'limited' }>): DomainError => {
  const who = decision.scope === 'address' ? 'from this address' : 'for this client id';
  return new DomainError(
    'RATE_LIMITED',
    'rate_limited',
    `Too many failed authentications ${who}. Retry after ${decision.retryAfterSeconds} s ` +
      'with the clientId and clientSecret of a live API token.',
    { retryAfterSeconds: decision.retryAfterSeconds, limit: `failed-authentications-per-${decision.scope}` },
  );
};
