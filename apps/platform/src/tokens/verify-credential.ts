import { DomainError, type VerifiedCredential } from '@corridor/contracts';
import { type FairGate, GateFull } from './fair-gate';

export type VerifierDeps = {
  /** The live token with this client id, with what a verified credential carries; null when there is none. */
  findToken: (clientId: string) => Promise<{ secretHash: string; credential: VerifiedCredential } | null>;
  checkSecret: (secret: string, stored: string) => Promise<boolean>;
  /** A hash of a random secret with the same scrypt parameters: what an unknown client id is checked against. */
  dummyHash: string;
  /** Bounds concurrent scrypts, fair per client id (fair-gate.ts). */
  gate: FairGate;
};

/**
 * The credential check behind every uncached Basic authentication, whole inside the gate: a flood
 * is refused before it costs even the token lookup. An unknown client id pays the same scrypt
 * (against dummyHash), in the same queue, as a known one: neither the answer nor its timing tells
 * a caller which client ids exist (decision 0022). Null: the credentials are wrong.
 */
export const verifyCredential = (deps: VerifierDeps, clientId: string, clientSecret: string): Promise<VerifiedCredential | null> =>
  deps.gate.run(clientId, async () => {
    const token = await deps.findToken(clientId);
    const matches = await deps.checkSecret(clientSecret, token?.secretHash ?? deps.dummyHash);
    return token && matches ? token.credential : null;
  });

/** The answer when the gate refuses: the caller backs off (Retry-After); the gateway does not count it as a failure. */
export const gateRefusal = (full: GateFull): DomainError =>
  full.scope === 'key'
    ? new DomainError(
        'RATE_LIMITED',
        'rate_limited',
        'Too many authentications with this client id are waiting to be verified. Retry after 1 s.',
        { retryAfterSeconds: 1 },
      )
    : new DomainError(
        'SERVICE_UNAVAILABLE',
        'unavailable',
        'The platform service is verifying as many credentials as it can. Retry after 1 s.',
        { retryAfterSeconds: 1 },
      );

export { GateFull };
