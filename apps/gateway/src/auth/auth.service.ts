import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError, subjects, type VerifiedCredential, type VerifyCredentialData } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { Subscription } from 'nats';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { GatewayMetrics } from '../http/gateway-metrics';
import { AGENT_TOKEN_VERIFIER, type AgentTokenVerifier } from './agent-token-verifier';
import { admitAttempt, failureOf, limitedError } from './auth-attempts';
import { CredentialCache, credentialKey } from './credential-cache';
import { FailedAttempts } from './failed-attempts';

const CACHE_MAX_ENTRIES = 10_000;
/** How long a credential that verified is remembered as "verified before" (exempt from its client id's failure limit). */
const REMEMBER_VERIFIED_MS = 24 * 3600 * 1000;

const unauthorized = (why: string) =>
  new DomainError('UNAUTHORIZED', 'unauthorized', `${why} Send Authorization: Basic base64(clientId:clientSecret) of an API token.`);

type TraceIds = { requestId: string; correlationId: string };
type FailureStage = Parameters<typeof failureOf>[1];
type AttemptSite = Parameters<FailedAttempts['record']>[1];

/** Who is asking: the trace ids and the source address (the socket's, or X-Forwarded-For under TRUST_PROXY). */
export type AttemptOrigin = TraceIds & { address: string };

const parseBasic = (encoded: string): { clientId: string; clientSecret: string } => {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const clientId = decoded.slice(0, colon);
  const clientSecret = decoded.slice(colon + 1);
  if (colon <= 0 || clientSecret.length === 0 || clientId.length > 256 || clientSecret.length > 256) {
    throw unauthorized('The Basic credentials are malformed.');
  }
  return { clientId, clientSecret };
};

@Injectable()
export class AuthService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly cache: CredentialCache;
  private readonly verifying = new Map<string, Promise<VerifiedCredential>>();
  private revocations?: Subscription;

  constructor(
    private readonly client: ServiceClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(AGENT_TOKEN_VERIFIER) private readonly agentTokens: AgentTokenVerifier,
    private readonly failures: FailedAttempts,
    private readonly metrics: GatewayMetrics,
  ) {
    const ttlMs = config.authCacheTtlSeconds * 1000;
    this.cache = new CredentialCache({ ttlMs, rememberMs: REMEMBER_VERIFIED_MS, maxEntries: CACHE_MAX_ENTRIES });
  }

  // Every replica listens (no queue group): a deleted token must stop working on all of them.
  async onApplicationBootstrap(): Promise<void> {
    this.revocations = await this.client.subscribe(subjects.platform.tokenRevoked, (data) => {
      const tokenId = (data as { tokenId?: unknown })?.tokenId;
      if (typeof tokenId === 'string') this.cache.evictToken(tokenId);
    });
  }

  onApplicationShutdown(): void {
    this.revocations?.unsubscribe();
  }

  evictToken(tokenId: string): void {
    this.cache.evictToken(tokenId);
  }

  async authenticate(authorization: string | undefined, origin: AttemptOrigin): Promise<VerifiedCredential> {
    const { address, ...ids } = origin;
    if (!authorization) throw unauthorized('No credentials were sent.');
    const [scheme, value, ...rest] = authorization.trim().split(/\s+/);
    if (!value || rest.length > 0) throw unauthorized('The Authorization header is malformed.');
    if (scheme?.toLowerCase() === 'bearer') return this.agentTokens.verify(value, ids);
    if (scheme?.toLowerCase() !== 'basic') throw unauthorized(`The ${scheme} scheme is not supported.`);
    let credentials: VerifyCredentialData;
    try {
      credentials = parseBasic(value);
    } catch (error) {
      await this.countFailure(error, 'parse', { address });
      throw error;
    }
    return this.authenticateBasic(credentials, { ...ids, address });
  }

  /** Cache, limits and negative cache before the NATS hop (auth-attempts.ts decides), then the platform service. */
  private async authenticateBasic(credentials: VerifyCredentialData, origin: AttemptOrigin): Promise<VerifiedCredential> {
    const { address } = origin;
    const pairKey = credentialKey(credentials.clientId, credentials.clientSecret);
    const at = { address, clientId: credentials.clientId, pairKey };
    const cached = this.cache.get(pairKey);
    const decision = admitAttempt({
      cached: cached !== undefined,
      knownGood: this.cache.verifiedBefore(pairKey),
      knownBad: this.failures.isKnownBad(pairKey),
      ...(cached ? { addressBlockedMs: 0, clientBlockedMs: 0 } : await this.failures.blockedMs(address, credentials.clientId)),
    });
    switch (decision.kind) {
      case 'use-cached':
        if (cached) return cached;
        break;
      case 'limited':
        this.metrics.authLimited.inc({ scope: decision.scope });
        throw limitedError(decision);
      case 'refuse-known-bad':
        await this.countFailure(undefined, 'known-bad', at);
        throw unauthorized('The API credentials are not valid.');
      case 'verify':
        break;
    }
    // Concurrent first requests of one credential (a client's burst when its cache entry expires)
    // share one verification: one scrypt, one count, never a queue of copies behind each other.
    const running = this.verifying.get(pairKey);
    if (running) return running;
    const verification = this.verify(credentials, origin, this.cache.verifiedBefore(pairKey)).finally(() => this.verifying.delete(pairKey));
    this.verifying.set(pairKey, verification);
    return verification;
  }

  /**
   * A credential that verified before is verified whatever the counters say; any other attempt is
   * counted as a failure before it is judged (decision 0022), so a concurrent burst of guesses reaches
   * the platform service only up to the limits, and the count is given back if it verifies.
   */
  private async verify(credentials: VerifyCredentialData, origin: AttemptOrigin, knownGood: boolean): Promise<VerifiedCredential> {
    const { address, ...ids } = origin;
    const pairKey = credentialKey(credentials.clientId, credentials.clientSecret);
    const reservation = knownGood ? null : await this.failures.reserve(address, credentials.clientId);
    if (reservation?.kind === 'refused') {
      const decision = admitAttempt({ cached: false, knownGood: false, knownBad: false, ...reservation });
      if (decision.kind === 'limited') {
        this.metrics.authLimited.inc({ scope: decision.scope });
        throw limitedError(decision);
      }
    }
    const startedAt = Date.now();
    try {
      const credential = await this.client.request<VerifiedCredential>(
        subjects.platform.auth.verify,
        credentials satisfies VerifyCredentialData,
        { context: { platformId: '', actor: { kind: 'system', name: 'gateway' }, ...ids }, timeoutMs: this.config.requestTimeoutMs },
      );
      this.cache.put(pairKey, credential, startedAt);
      if (reservation?.kind === 'reserved') await this.failures.settle(reservation, null, pairKey);
      return credential;
    } catch (error) {
      if (reservation?.kind === 'reserved') await this.failures.settle(reservation, failureOf(error, 'verify'), pairKey);
      else await this.countFailure(error, 'verify', { address, clientId: credentials.clientId, pairKey });
      throw error;
    }
  }

  private async countFailure(error: unknown, stage: FailureStage, at: AttemptSite): Promise<void> {
    const failure = failureOf(error, stage);
    if (failure) await this.failures.record(failure, at);
  }
}
