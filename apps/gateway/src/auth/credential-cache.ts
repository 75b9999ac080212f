import { createHash } from 'node:crypto';
import type { VerifiedCredential } from '@corridor/contracts';

// Verified Basic credentials, kept briefly so the hot path skips the NATS hop and the scrypt
// check. Keys are hashes of clientId:secret, so no secret sits in memory longer than a request.
// Past its TTL an entry is still remembered for rememberMs as "verified before": such a credential
// is verified again, but the failure limits of its client id do not hold it back (decision 0022).

type Entry = { credential: VerifiedCredential; expiresAt: number; rememberedUntil: number };

export type CredentialCacheOptions = { ttlMs: number; rememberMs: number; maxEntries: number; now?: () => number };

export const credentialKey = (clientId: string, clientSecret: string): string =>
  createHash('sha256').update(`${clientId}:${clientSecret}`).digest('hex');

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly keysByToken = new Map<string, Set<string>>();
  /** When each token was last revoked, so a verification that raced the revocation is not cached. */
  private readonly revokedAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: CredentialCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  get(key: string): VerifiedCredential | undefined {
    const entry = this.live(key);
    return entry && entry.expiresAt > this.now() ? entry.credential : undefined;
  }

  /** This exact credential verified within rememberMs and its token was not revoked since. */
  verifiedBefore(key: string): boolean {
    return this.live(key) !== undefined;
  }

  /** verifiedSince: when the verification that produced the credential started. */
  put(key: string, credential: VerifiedCredential, verifiedSince: number): void {
    const revoked = this.revokedAt.get(credential.tokenId);
    if (revoked !== undefined && revoked >= verifiedSince) return;
    if (this.entries.size >= this.options.maxEntries) this.evictOldest();
    // Re-inserted, so Map order stays oldest-first for evictOldest.
    this.entries.delete(key);
    const now = this.now();
    const { ttlMs, rememberMs } = this.options;
    this.entries.set(key, { credential, expiresAt: now + ttlMs, rememberedUntil: now + Math.max(ttlMs, rememberMs) });
    const keys = this.keysByToken.get(credential.tokenId) ?? new Set<string>();
    keys.add(key);
    this.keysByToken.set(credential.tokenId, keys);
  }

  evictToken(tokenId: string): void {
    this.revokedAt.set(tokenId, this.now());
    for (const key of this.keysByToken.get(tokenId) ?? []) this.entries.delete(key);
    this.keysByToken.delete(tokenId);
    // A revocation only matters to verifications still in flight; older marks can go.
    const horizon = this.now() - this.options.ttlMs;
    for (const [id, at] of this.revokedAt) if (at < horizon) this.revokedAt.delete(id);
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.rememberedUntil > this.now()) return entry;
    this.remove(key, entry.credential.tokenId);
    return undefined;
  }

  private remove(key: string, tokenId: string): void {
    this.entries.delete(key);
    const keys = this.keysByToken.get(tokenId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.keysByToken.delete(tokenId);
  }

  private evictOldest(): void {
    // Map iteration follows insertion order, so the first entry is the oldest.
    const first = this.entries.entries().next();
    if (!first.done) this.remove(first.value[0], first.value[1].credential.tokenId);
  }
}
