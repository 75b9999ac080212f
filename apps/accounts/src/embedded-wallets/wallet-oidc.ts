import { Inject, Injectable } from '@nestjs/common';
import type { RequestContext } from '@corridor/contracts';
import { checkOidcClaims, JWKS_TIMEOUT_MS, oidcAudiencesOf, type OidcIdentity, OidcVerifier } from './oidc';
import { requireOidcToken } from './wallet-commands';
import { WALLET_OPTIONS, WALLET_STORE, type WalletOptions } from './wallet-lookups';
import type { WalletStore } from './wallet-store';

/** OAUTH credentials' tokens: checked against the configured issuers and the reference's claim rules for the asking platform. */
@Injectable()
export class WalletOidc {
  private readonly verifier: OidcVerifier;

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) options: WalletOptions,
  ) {
    this.verifier = new OidcVerifier(options.oidcIssuers, { jwksTimeoutMs: JWKS_TIMEOUT_MS });
  }

  /** The token's identity and the nickname a new credential takes (its email, else its sub). */
  async identity(
    context: RequestContext,
    oidcToken: string | undefined,
    now: Date,
    expect: { identity?: OidcIdentity; nonce?: string } = {},
  ): Promise<{ identity: OidcIdentity; nickname: string }> {
    const token = requireOidcToken(oidcToken);
    const platform = await this.store.platform(context.platformId);
    const sandbox = platform?.environment === 'SANDBOX';
    const audiences = oidcAudiencesOf(platform?.config, sandbox);
    const claims = await this.verifier.verify(token, now, { sandbox });
    const identity = checkOidcClaims(claims, now, { ...expect, ...(audiences ? { audiences } : {}) });
    return { identity, nickname: typeof claims['email'] === 'string' && claims['email'] !== '' ? claims['email'] : identity.sub };
  }
}
