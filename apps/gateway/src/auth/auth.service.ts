import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DomainError, subjects, type VerifiedCredential, type VerifyCredentialData } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { Subscription } from 'nats';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { AGENT_TOKEN_VERIFIER, type AgentTokenVerifier } from './agent-token-verifier';
import { CredentialCache, credentialKey } from './credential-cache';

const CACHE_MAX_ENTRIES = 10_000;

const unauthorized = (why: string) =>
  new DomainError('UNAUTHORIZED', 'unauthorized', `${why} Send Authorization: Basic base64(clientId:clientSecret) of an API token.`);

type TraceIds = { requestId: string; correlationId: string };

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
  private revocations?: Subscription;

  constructor(
    private readonly client: ServiceClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(AGENT_TOKEN_VERIFIER) private readonly agentTokens: AgentTokenVerifier,
  ) {
    this.cache = new CredentialCache({ ttlMs: config.authCacheTtlSeconds * 1000, maxEntries: CACHE_MAX_ENTRIES });
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

  async authenticate(authorization: string | undefined, ids: TraceIds): Promise<VerifiedCredential> {
    if (!authorization) throw unauthorized('No credentials were sent.');
    const [scheme, value, ...rest] = authorization.trim().split(/\s+/);
    if (!value || rest.length > 0) throw unauthorized('The Authorization header is malformed.');
    if (scheme?.toLowerCase() === 'bearer') return this.agentTokens.verify(value, ids);
    if (scheme?.toLowerCase() !== 'basic') throw unauthorized(`The ${scheme} scheme is not supported.`);
    const credentials = parseBasic(value);
    const key = credentialKey(credentials.clientId, credentials.clientSecret);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const startedAt = Date.now();
    const credential = await this.client.request<VerifiedCredential>(subjects.platform.auth.verify, credentials satisfies VerifyCredentialData, {
      context: { platformId: '', actor: { kind: 'system', name: 'gateway' }, ...ids },
      timeoutMs: this.config.requestTimeoutMs,
    });
    this.cache.put(key, credential, startedAt);
    return credential;
  }
}
