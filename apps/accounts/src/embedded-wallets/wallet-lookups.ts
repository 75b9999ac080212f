import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, DomainError, isIdOf } from '@corridor/contracts';
import { isActive, signerKeysOf } from './auth-rules';
import type { EmbeddedWalletConfig } from './wallet-config';
import type { BundleSigningKey } from './wallet-crypto';
import type { CredentialRow, SessionRow, WalletStore } from './wallet-store';

// The reads every Embedded Wallet flow starts from: the asking platform's wallet, credential or
// active session (404 alike for unknown, malformed and other platforms' ids), the keys that may
// sign for a wallet, and whether the platform is a sandbox.

export const WALLET_STORE = 'WALLET_STORE';
export const WALLET_OPTIONS = 'WALLET_OPTIONS';
export type WalletOptions = EmbeddedWalletConfig;
/** The name every Embedded Wallet flow logs under. */
export const WALLET_LOGGER = 'accounts:embedded-wallets';

export type WalletRef = { accountId: string; customerId: string };

export const notFound = (what: string, id: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `${what} ${id} does not exist.`);

/** Production bundles are signed by the configured key (the reference's enclave quorum key); sandbox ones never are. */
export const bundleSignerOf = (options: WalletOptions, environment: string): BundleSigningKey | null =>
  environment === 'PRODUCTION' ? options.exportSigningKey : null;

@Injectable()
export class WalletLookups {
  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The wallet of the asking platform, or 404 (unknown, malformed, other platforms' and non-wallet accounts alike). */
  async wallet(accountId: string, platformId: string): Promise<WalletRef> {
    if (!isIdOf('InternalAccount', accountId)) throw notFound('Embedded Wallet account', accountId);
    const wallet = await this.store.walletOf(accountId, platformId);
    if (!wallet) throw notFound('Embedded Wallet account', accountId);
    return wallet;
  }

  /** The wallet a list filters by, or null: the lists declare no 404. */
  async listedWallet(accountId: string, platformId: string): Promise<WalletRef | null> {
    return isIdOf('InternalAccount', accountId) ? this.store.walletOf(accountId, platformId) : null;
  }

  /** The first Embedded Wallet of the platform among the account ids, or null. */
  async firstWallet(accountIds: readonly string[], platformId: string): Promise<{ accountId: string } | null> {
    for (const accountId of new Set(accountIds)) {
      const wallet =
        typeof accountId === 'string' && isIdOf('InternalAccount', accountId) ? await this.store.walletOf(accountId, platformId) : null;
      if (wallet) return wallet;
    }
    return null;
  }

  async credential(credentialId: string, platformId: string): Promise<CredentialRow> {
    const credential = isIdOf('AuthMethod', credentialId) ? await this.store.credential(credentialId, platformId) : null;
    if (!credential) throw notFound('Credential', credentialId);
    return credential;
  }

  async activeSession(sessionId: string, platformId: string): Promise<{ session: SessionRow; credential: CredentialRow }> {
    const session = isIdOf('Session', sessionId) ? await this.store.session(sessionId, platformId) : null;
    if (!session || !isActive(session, this.clock.now())) throw notFound('Active session', sessionId);
    const credential = await this.store.credential(session.credentialId, platformId);
    if (!credential) throw notFound('Active session', sessionId);
    return { session, credential };
  }

  /** The keys of the account's active sessions, or (revoking a credential) of its other credentials' sessions only. */
  async activeSessionKeys(accountId: string, platformId: string, now: Date, exceptCredentialId?: string): Promise<string[]> {
    return signerKeysOf(await this.store.sessions(accountId, platformId), now, exceptCredentialId);
  }

  /** Whether the platform is a sandbox, where the reference's sandbox values stand in for signatures. Unknown platforms are not. */
  async isSandbox(platformId: string): Promise<boolean> {
    return (await this.store.platform(platformId))?.environment === 'SANDBOX';
  }
}
