import { Inject, Injectable } from '@nestjs/common';
import {
  type AuthMethodResponseWire,
  type AuthMethodWire,
  CLOCK,
  type Clock,
  DomainError,
  invalidInput,
  newId,
  type RequestContext,
  type SignedReply,
} from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { decideNewCredential, decideRevokeCredential } from './auth-rules';
import type { OidcIdentity } from './oidc';
import { type PasskeyKey, registerPasskey } from './passkeys';
import { isFirstLeg } from './signed-retry';
import { SignedRequests } from './signed-requests';
import type {
  CreateCredentialCommand,
  CreateEmailOtpCredentialCommand,
  CreateOauthCredentialCommand,
  CreatePasskeyCredentialCommand,
  RevokeCredentialCommand,
} from './wallet-commands';
import { WALLET_LOGGER, WALLET_OPTIONS, WALLET_STORE, WalletLookups, type WalletOptions } from './wallet-lookups';
import { WalletOidc } from './wallet-oidc';
import { WalletOtpMail } from './wallet-otp-mail';
import type { CredentialRow, WalletStore } from './wallet-store';
import { activityPayload, renderCredential } from './wallet-wire';

type CredentialReply = SignedReply<AuthMethodResponseWire>;

/**
 * A wallet's credentials: listed, added (EMAIL_OTP, OAUTH, PASSKEY; signed by an active session once
 * the wallet has one) and revoked. The rules are auth-rules.ts's; this class reads and writes around them.
 */
@Injectable()
export class WalletCredentials {
  private readonly logger = createLogger(WALLET_LOGGER);

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lookups: WalletLookups,
    private readonly signer: SignedRequests,
    private readonly otpMail: WalletOtpMail,
    private readonly oidc: WalletOidc,
  ) {
    if (options.webAuthn.rpIds.length === 0) {
      this.logger.warn(
        'Passkeys are off: no relying party is configured (EMBEDDED_WALLET_WEBAUTHN_RP_IDS and _ORIGINS); ' +
          'passkey registration and sign-in answer 503.',
      );
    }
  }

  /**
   * The lists take accountId as a filter, and the reference declares no 404 for them: an account
   * that is not an Embedded Wallet of this platform (unknown, another kind, another platform's) has
   * no credentials and no sessions here, so the list is empty, and tells nothing about other platforms.
   */
  async list(context: RequestContext, accountId: string): Promise<{ data: AuthMethodWire[] }> {
    const wallet = await this.lookups.listedWallet(accountId, context.platformId);
    return { data: wallet ? (await this.store.credentials(wallet.accountId, context.platformId)).map(renderCredential) : [] };
  }

  async create(context: RequestContext, command: CreateCredentialCommand): Promise<CredentialReply> {
    switch (command.type) {
      case 'PASSKEY':
        return this.createPasskey(context, command);
      case 'OAUTH':
        return this.createOauth(context, command);
      case 'EMAIL_OTP':
        return this.createEmailOtp(context, command);
      default: {
        const unknownType: never = command;
        throw new Error(`parseCreateCredential let through a credential type no create handles: ${JSON.stringify(unknownType)}.`);
      }
    }
  }

  /** EMAIL_OTP: the customer's email, and a first OTP mailed at once. */
  private async createEmailOtp(context: RequestContext, command: CreateEmailOtpCredentialCommand): Promise<CredentialReply> {
    const wallet = await this.lookups.wallet(command.accountId, context.platformId);
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type: 'EMAIL_OTP' });
    const customer = await this.store.customer(wallet.customerId);
    if (!customer?.email)
      throw invalidInput('An EMAIL_OTP credential uses the customer’s email, and this customer has none; set it first.', { field: 'type' });
    const email = customer.email;
    const create = (now: Date) => this.insertEmailOtp(context, wallet.accountId, email, now);
    if (!needsSignature) return create(this.clock.now());
    return this.signer.signed(
      {
        context,
        accountId: wallet.accountId,
        operation: 'CREATE_CREDENTIAL',
        targetId: wallet.accountId,
        body: command.body,
        headers: command.headers,
        type: 'EMAIL_OTP',
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
            context.platformId,
            { userId: wallet.accountId, userEmail: email },
            now,
            requestId,
          ),
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (_pending, now) => create(now),
    );
  }

  private async insertEmailOtp(context: RequestContext, accountId: string, email: string, now: Date): Promise<CredentialReply> {
    const row = this.newRow(context, accountId, { type: 'EMAIL_OTP', nickname: email, credentialId: null, identity: null }, now);
    try {
      await this.store.insertCredential(row);
    } catch (error) {
      // The unique index on one EMAIL_OTP per account: a concurrent create won.
      if ((error as { code?: string }).code === '23505')
        throw new DomainError('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'validation', 'This account already has an EMAIL_OTP credential.');
      throw error;
    }
    const otpEncryptionTargetBundle = await this.otpMail.issue(context, row, now);
    return { status: 201, body: { ...renderCredential(row), otpEncryptionTargetBundle } };
  }

  /** OAUTH: the token is verified on the first call; its identity is bound to the pending request when a signature is needed. */
  private async createOauth(context: RequestContext, command: CreateOauthCredentialCommand): Promise<CredentialReply> {
    const wallet = await this.lookups.wallet(command.accountId, context.platformId);
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type: 'OAUTH' });
    const op = this.createOperation(context, wallet.accountId, command, 'OAUTH');
    if (!needsSignature || isFirstLeg(command.headers)) {
      const now = this.clock.now();
      const { identity, nickname } = await this.oidc.identity(context, command.oidcToken, now);
      if (!needsSignature) return this.insertOauth(context, wallet.accountId, { identity, nickname }, now);
      return this.signer.bindFirstLeg({
        ...op,
        bound: { identity, nickname },
        payload: (requestId, issuedAt) =>
          activityPayload(
            'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS',
            context.platformId,
            { userId: wallet.accountId, oauthProviders: [{ providerName: identity.iss, oidcToken: '(bound)' }] },
            issuedAt,
            requestId,
          ),
      });
    }
    // Leg 2: the token was checked on leg 1; the body (and so the token) must be the one bound then.
    return this.signer.signed(
      {
        ...op,
        payload: () => '',
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (pending, now) =>
        this.insertOauth(
          context,
          wallet.accountId,
          { identity: pending.bound['identity'] as OidcIdentity, nickname: String(pending.bound['nickname']) },
          now,
        ),
    );
  }

  private async insertOauth(
    context: RequestContext,
    accountId: string,
    { identity, nickname }: { identity: OidcIdentity; nickname: string },
    now: Date,
  ): Promise<CredentialReply> {
    const current = await this.store.credentials(accountId, context.platformId);
    if (current.some((credential) => credential.type === 'OAUTH' && JSON.stringify(credential.identity) === JSON.stringify(identity))) {
      throw invalidInput('This OIDC identity (iss, aud, sub) is already an OAUTH credential of the account.', { field: 'oidcToken' });
    }
    const row = this.newRow(context, accountId, { type: 'OAUTH', nickname, credentialId: null, identity }, now);
    await this.store.insertCredential(row);
    return { status: 201, body: renderCredential(row) };
  }

  /**
   * PASSKEY: the attestation is verified against the platform-issued challenge on the first call; the key is bound to the pending request.
   */
  private async createPasskey(context: RequestContext, command: CreatePasskeyCredentialCommand): Promise<CredentialReply> {
    const { attestation, nickname, challenge } = command;
    const wallet = await this.lookups.wallet(command.accountId, context.platformId);
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type: 'PASSKEY', credentialId: attestation?.credentialId });
    const op = this.createOperation(context, wallet.accountId, command, 'PASSKEY');
    if (!needsSignature || isFirstLeg(command.headers)) {
      const key = await registerPasskey(attestation, challenge, this.options.webAuthn);
      if (!needsSignature) return this.insertPasskey(context, wallet.accountId, { key, nickname, challenge }, this.clock.now());
      return this.signer.bindFirstLeg({
        ...op,
        bound: { key },
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
            context.platformId,
            { userId: wallet.accountId, authenticators: [{ authenticatorName: nickname, credentialId: key.credentialId }] },
            now,
            requestId,
          ),
      });
    }
    return this.signer.signed(
      {
        ...op,
        payload: () => '',
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (pending, now) =>
        this.insertPasskey(context, wallet.accountId, { key: pending.bound['key'] as PasskeyKey, nickname, challenge }, now),
    );
  }

  private async insertPasskey(
    context: RequestContext,
    accountId: string,
    { key, nickname, challenge }: { key: PasskeyKey; nickname: string; challenge: string },
    now: Date,
  ): Promise<CredentialReply> {
    decideNewCredential(await this.store.credentials(accountId, context.platformId), { type: 'PASSKEY', credentialId: key.credentialId });
    const identity = { ...key, registrationChallenge: challenge };
    const row = this.newRow(context, accountId, { type: 'PASSKEY', nickname, credentialId: key.credentialId, identity }, now);
    try {
      await this.store.insertCredential(row);
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw invalidInput('challenge was already used to register a passkey; issue a new one for each registration.', {
          field: 'challenge',
        });
      throw error;
    }
    return { status: 201, body: renderCredential(row) };
  }

  /** The signed operation of a credential create: the wallet signs for itself, with the body as sent. */
  private createOperation(context: RequestContext, accountId: string, command: CreateCredentialCommand, type: 'OAUTH' | 'PASSKEY') {
    return { context, accountId, operation: 'CREATE_CREDENTIAL', targetId: accountId, body: command.body, headers: command.headers, type };
  }

  private newRow(
    context: RequestContext,
    accountId: string,
    fields: Pick<CredentialRow, 'type' | 'nickname' | 'credentialId' | 'identity'>,
    now: Date,
  ): CredentialRow {
    return { id: newId('AuthMethod'), platformId: context.platformId, accountId, ...fields, createdAt: now, updatedAt: now };
  }

  async revoke(context: RequestContext, command: RevokeCredentialCommand): Promise<SignedReply<never>> {
    const credential = await this.lookups.credential(command.credentialId, context.platformId);
    decideRevokeCredential(await this.store.credentials(credential.accountId, context.platformId), credential.id);
    return this.signer.signed(
      {
        context,
        accountId: credential.accountId,
        operation: 'REVOKE_CREDENTIAL',
        targetId: credential.id,
        body: {},
        headers: command.headers,
        type: credential.type,
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_DELETE_AUTHENTICATORS',
            context.platformId,
            { userId: credential.accountId, authenticatorIds: [credential.id] },
            now,
            requestId,
          ),
        // Signed by a session of another credential: a lost device cannot remove the others' way in by itself.
        signerKeys: (_pending, now) => this.lookups.activeSessionKeys(credential.accountId, context.platformId, now, credential.id),
      },
      async (_pending, now) => {
        // Decided again under the wallet's lock: the set may have changed between the legs, or a
        // revoke of the other credential may be completing at this very moment.
        await this.store.revokeCredential(credential.id, credential.accountId, now, (current) =>
          decideRevokeCredential(current, credential.id),
        );
        return { status: 204 };
      },
    );
  }
}
