import { Inject, Injectable } from '@nestjs/common';
import { type AuthSessionWire, CLOCK, type Clock, newId, type RequestContext, type SignedReply } from '@corridor/contracts';
import { isActive } from './auth-rules';
import { SignedRequests } from './signed-requests';
import type { RefreshSessionCommand, RevokeSessionCommand } from './wallet-commands';
import { compressedPublicKey, generateP256KeyPair, sealSessionSigningKey } from './wallet-crypto';
import { notFound, WALLET_OPTIONS, WALLET_STORE, WalletLookups, type WalletOptions } from './wallet-lookups';
import type { CredentialRow, SessionRow, WalletStore } from './wallet-store';
import { activityPayload, renderSession } from './wallet-wire';

/** A wallet's sessions once signed in (wallet-sign-in.ts opens them): listed, revoked and refreshed, each change signed. */
@Injectable()
export class WalletSessions {
  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lookups: WalletLookups,
    private readonly signer: SignedRequests,
  ) {}

  /** A fresh session key: its public half kept, its private half sealed to the client and forgotten. */
  async openSealed(context: RequestContext, credential: CredentialRow, clientPublicKey: string, now: Date): Promise<AuthSessionWire> {
    const key = generateP256KeyPair();
    const session = this.newRow(context, credential, compressedPublicKey(key.publicKeyHex), now);
    await this.store.insertSession(session);
    return renderSession(session, credential, await sealSessionSigningKey(clientPublicKey, key.privateKeyHex));
  }

  /** A session whose key the client already holds (the TEK of an EMAIL_OTP verify). */
  async open(context: RequestContext, credential: CredentialRow, publicKey: string, now: Date): Promise<AuthSessionWire> {
    const session = this.newRow(context, credential, publicKey, now);
    await this.store.insertSession(session);
    return renderSession(session, credential);
  }

  private newRow(context: RequestContext, credential: CredentialRow, publicKey: string, now: Date): SessionRow {
    return {
      id: newId('Session'),
      platformId: context.platformId,
      accountId: credential.accountId,
      credentialId: credential.id,
      publicKey,
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.options.sessionTtlSeconds * 1000),
      revokedAt: null,
    };
  }

  /** Active sessions of an Embedded Wallet of this platform; empty for any other account (see WalletCredentials.list). */
  async list(context: RequestContext, accountId: string): Promise<{ data: AuthSessionWire[] }> {
    const wallet = await this.lookups.listedWallet(accountId, context.platformId);
    if (!wallet) return { data: [] };
    const now = this.clock.now();
    const credentials = new Map(
      (await this.store.credentials(wallet.accountId, context.platformId)).map((credential) => [credential.id, credential]),
    );
    const sessions = (await this.store.sessions(wallet.accountId, context.platformId)).filter((session) => isActive(session, now));
    return {
      data: sessions.flatMap((session) => {
        const credential = credentials.get(session.credentialId);
        return credential ? [renderSession(session, credential)] : [];
      }),
    };
  }

  async revoke(context: RequestContext, command: RevokeSessionCommand): Promise<SignedReply<never>> {
    const { session, credential } = await this.lookups.activeSession(command.sessionId, context.platformId);
    return this.signer.signed(
      {
        context,
        accountId: session.accountId,
        operation: 'REVOKE_SESSION',
        targetId: session.id,
        body: {},
        headers: command.headers,
        type: credential.type,
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_DELETE_API_KEYS',
            context.platformId,
            { userId: session.accountId, apiKeyIds: [session.id] },
            now,
            requestId,
          ),
        // Any active session of the account, the one being revoked included (self-logout).
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(session.accountId, context.platformId, now),
      },
      async (_pending, now) => {
        await this.store.revokeSession(session.id, now);
        return { status: 204 };
      },
    );
  }

  async refresh(context: RequestContext, command: RefreshSessionCommand): Promise<SignedReply<AuthSessionWire>> {
    const { clientPublicKey } = command;
    const { session, credential } = await this.lookups.activeSession(command.sessionId, context.platformId);
    return this.signer.signed(
      {
        context,
        accountId: session.accountId,
        operation: 'REFRESH_SESSION',
        targetId: session.id,
        body: { clientPublicKey: clientPublicKey.toLowerCase() },
        headers: command.headers,
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
            context.platformId,
            { targetPublicKey: clientPublicKey, expirationSeconds: String(this.options.sessionTtlSeconds) },
            now,
            requestId,
          ),
        // Signed with the current session key, which must still be active.
        signerKeys: async (_pending, now) => (isActive(session, now) ? [session.publicKey] : []),
      },
      async (_pending, now) => {
        const current = await this.store.session(session.id, context.platformId);
        if (!current || !isActive(current, now)) throw notFound('Active session', session.id);
        return { status: 201, body: await this.openSealed(context, credential, clientPublicKey, now) };
      },
    );
  }
}
