import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { UnsecuredJWT } from 'jose';
import {
  type AuthMethodResponseWire,
  type AuthMethodType,
  type AuthMethodWire,
  type AuthSessionWire,
  CLIENT_PUBLIC_KEY_PATTERN,
  CLOCK,
  type Clock,
  DomainError,
  givesSignedRequestBack,
  invalidInput,
  isIdOf,
  newId,
  type RequestContext,
  type SandboxMailWire,
  type SignedReply,
  type VerifyWalletStampData,
  type WalletAuthorization,
  type WalletFundedChangeData,
  type WalletSignatureHeaders,
} from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import {
  admitAttempt,
  countsTowardLock,
  decideNewCredential,
  decideRevokeCredential,
  DEFAULT_FAILURE_POLICY,
  type FailurePolicy,
  type FailureWindow,
  giveBackAttempt,
  isActive,
  isLastAdmitted,
  otpAccepted,
  otpCodeFrom,
  refuseWhileLocked,
  signerKeysOf,
} from './auth-rules';
import { checkEmailSynced, decideEmailChange, decideEmailSync, tiedSet } from './email-change';
import { checkOidcClaims, nonceFor, oidcAudiencesOf, type OidcIdentity, OidcVerifier } from './oidc';
import { OtpMailMetrics } from './otp-mail-metrics';
import {
  composeOtpMail,
  deliveryFailureMessage,
  MailDeliveryError,
  OTP_MAILERS,
  type OtpBranding,
  type OtpMail,
  type OtpMailer,
  type OtpMailers,
} from './otp-mail';
import {
  authenticatePasskey,
  offersSandboxAssertion,
  passkeyChallengeOf,
  type PasskeyAssertion,
  type PasskeyAttestation,
  type PasskeyKey,
  registerPasskey,
  sandboxAssertionAccepted,
} from './passkeys';
import { SandboxMailbox } from './sandbox-mailbox';
import { type ConsentPlan, consentPlanOf, WALLET_CURRENCY } from './signed-consent';
import { CHALLENGE_TTL_MS, checkRetry, isFirstLeg, legOf, offersSandboxSignature, type PendingRequest } from './signed-retry';
import { activityPayload, renderCredential, renderSession } from './wallet-wire';
import {
  bodyDigest,
  type BundleSigningKey,
  compressedPublicKey,
  exportBundle,
  generateP256KeyPair,
  newMnemonic,
  openAtRest,
  openOtpBundle,
  otpDigest,
  otpDigestKey,
  otpEncryptionTargetBundle,
  parseStamp,
  randomSalt,
  sameDigest,
  sealAtRest,
  sealSessionSigningKey,
  verifyStamp,
} from './wallet-crypto';
import type { EmbeddedWalletConfig } from './wallet-config';
import type { CredentialRow, SessionRow, WalletStore } from './wallet-store';
import { parseLedgerAmount } from '../internal-accounts/ledger-input';
import { WalletConsents } from '../internal-accounts/wallet-consents';

export const WALLET_STORE = 'WALLET_STORE';
export const WALLET_OPTIONS = 'WALLET_OPTIONS';
export type WalletOptions = EmbeddedWalletConfig;

/** Signed operations whose change another service applies after accounts consumed the request. */
const DOWNSTREAM_OPERATIONS: readonly string[] = ['UPDATE_CUSTOMER_EMAIL', 'UPDATE_CARD', 'CREATE_CARD', 'TRANSFER_OUT'];

/** Challenges are not guesses: ten in ten minutes lock a credential's challenge (longer each time), and nothing clears the count early. */
const CHALLENGE_POLICY: FailurePolicy = { ...DEFAULT_FAILURE_POLICY, maxFailures: 10, windowMs: 10 * 60_000 };

type Signed = {
  context: RequestContext;
  accountId: string;
  operation: string;
  targetId: string;
  body: unknown;
  headers: WalletSignatureHeaders;
  type?: AuthMethodType;
  payload: (requestId: string, now: Date) => string;
  bound?: Record<string, unknown>;
  signerKeys: (pending: PendingRequest, now: Date) => Promise<string[]>;
};

const notFound = (what: string, id: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `${what} ${id} does not exist.`);
const invalidOtp = (): DomainError => new DomainError('UNAUTHORIZED', 'unauthorized', 'Invalid OTP code', { reason: 'Invalid OTP code' });

/**
 * Embedded Wallet credentials, challenges, sessions and the signed retry (reference section (k)).
 * Rules live in auth-rules.ts and signed-retry.ts; this class reads and writes the tables around them.
 */
@Injectable()
export class EmbeddedWallets {
  private readonly logger = createLogger('accounts:embedded-wallets');
  private readonly oidc: OidcVerifier;
  private readonly failurePolicy: FailurePolicy;
  /** The HMAC key of OTP digests, derived from the key-encryption key (never the key itself). */
  private readonly otpKey: Buffer;

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(OTP_MAILERS) private readonly mailers: OtpMailers,
    private readonly mailbox: SandboxMailbox,
    private readonly consents: WalletConsents,
    private readonly mailMetrics: OtpMailMetrics,
  ) {
    this.oidc = new OidcVerifier(options.oidcIssuers);
    this.failurePolicy = { ...DEFAULT_FAILURE_POLICY, maxFailures: options.authFailuresMax };
    this.otpKey = otpDigestKey(options.keyEncryptionKey);
    if (options.webAuthn.rpIds.length === 0) {
      this.logger.warn(
        'Passkeys are off: no relying party is configured (EMBEDDED_WALLET_WEBAUTHN_RP_IDS and _ORIGINS); ' +
          'passkey registration and sign-in answer 503.',
      );
    }
    if (!options.smtp) {
      this.logger.warn(
        'No SMTP relay is configured (SMTP_HOST, MAIL_FROM): production platforms’ EMAIL_OTP challenges answer 503 EMAIL_DELIVERY_UNAVAILABLE.',
      );
    }
    if (options.exportSigningKey) {
      const enclaveQuorumPublic = options.exportSigningKey.publicKeyHex;
      this.logger.info(
        { enclaveQuorumPublic },
        'Production wallet exports and OTP target bundles are signed; clients pin this public key.',
      );
    } else {
      this.logger.warn(
        'EMBEDDED_WALLET_EXPORT_SIGNING_KEY is unset: production wallet exports and OTP target bundles carry empty dataSignature and enclaveQuorumPublic.',
      );
    }
  }

  /**
   * One attempt under a failure counter (a credential's verify, a wallet's signatures). The attempt
   * takes its place in the count before it is judged (admitAttempt, under the key's row lock), so a
   * burst of concurrent guesses is judged at most up to the limit and the rest are 429 with
   * Retry-After. A wrong secret or signature keeps its place (countsTowardLock); a refusal that
   * guessed nothing gives it back; a success clears the key. `attempt` sees its admitted window.
   */
  private async counted<T>(
    key: string,
    now: Date,
    attempt: (admitted: FailureWindow) => Promise<T>,
    policy: FailurePolicy = this.failurePolicy,
  ): Promise<T> {
    const admitted = await this.store.changeAttempts(key, (window) => admitAttempt(window, now, policy));
    let result: T;
    try {
      result = await attempt(admitted);
    } catch (error) {
      if (!countsTowardLock(error)) await this.store.changeAttempts(key, (window) => giveBackAttempt(window ?? admitted, policy));
      throw error;
    }
    await this.store.clearAttempts(key);
    return result;
  }

  /** An OIDC token checked against the configured issuers and the reference's claim rules. */
  private async oidcIdentity(
    context: RequestContext,
    token: unknown,
    now: Date,
    expect: { identity?: OidcIdentity; nonce?: string } = {},
  ): Promise<{ identity: OidcIdentity; nickname: string }> {
    if (typeof token !== 'string' || token === '')
      throw invalidInput('oidcToken is required: an OIDC ID token from a configured issuer.', { field: 'oidcToken' });
    const platform = await this.store.platform(context.platformId);
    const sandbox = platform?.environment === 'SANDBOX';
    const audiences = oidcAudiencesOf(platform?.config, sandbox);
    const claims = await this.oidc.verify(token, now, { sandbox });
    const identity = checkOidcClaims(claims, now, { ...expect, ...(audiences ? { audiences } : {}) });
    return { identity, nickname: typeof claims['email'] === 'string' && claims['email'] !== '' ? claims['email'] : identity.sub };
  }

  /** Whether the platform is a sandbox, where the reference's sandbox values stand in for signatures. Unknown platforms are not. */
  private async isSandbox(platformId: string): Promise<boolean> {
    return (await this.store.platform(platformId))?.environment === 'SANDBOX';
  }

  /** The wallet's key and first credential; the internal account itself is opened by the policy. */
  async provision(input: { accountId: string; platformId: string; customerId: string; email: string }): Promise<void> {
    const now = this.clock.now();
    if (await this.store.walletOf(input.accountId, input.platformId)) return;
    await this.store.provisionWallet({
      ...input,
      sealedMnemonic: sealAtRest(newMnemonic(), this.options.keyEncryptionKey),
      credentialId: newId('AuthMethod'),
      now,
    });
  }

  /** The wallet of the asking platform, or 404 (unknown, malformed, other platforms' and non-wallet accounts alike). */
  private async wallet(accountId: unknown, platformId: string): Promise<{ accountId: string; customerId: string }> {
    if (typeof accountId !== 'string' || !isIdOf('InternalAccount', accountId))
      throw notFound('Embedded Wallet account', String(accountId));
    const wallet = await this.store.walletOf(accountId, platformId);
    if (!wallet) throw notFound('Embedded Wallet account', accountId);
    return wallet;
  }

  private async listedWallet(accountId: unknown, platformId: string): Promise<{ accountId: string; customerId: string } | null> {
    return typeof accountId === 'string' && isIdOf('InternalAccount', accountId) ? this.store.walletOf(accountId, platformId) : null;
  }

  private async credentialOf(credentialId: string, platformId: string): Promise<CredentialRow> {
    const credential = isIdOf('AuthMethod', credentialId) ? await this.store.credential(credentialId, platformId) : null;
    if (!credential) throw notFound('Credential', credentialId);
    return credential;
  }

  private async activeSessionKeys(accountId: string, platformId: string, now: Date, exceptCredentialId?: string): Promise<string[]> {
    return signerKeysOf(await this.store.sessions(accountId, platformId), now, exceptCredentialId);
  }

  /** The one two-step signed retry: leg 1 persists and answers 202, leg 2 checks, consumes once and completes. */
  private async signed<T>(op: Signed, complete: (pending: PendingRequest, now: Date) => Promise<SignedReply<T>>): Promise<SignedReply<T>> {
    const sandbox = offersSandboxSignature(op.headers.walletSignature) && (await this.isSandbox(op.context.platformId));
    const leg = legOf(op.headers, sandbox);
    const now = this.clock.now();
    const digest = bodyDigest(op.body ?? {});
    if (leg.leg === 'challenge') {
      const requestId = newId('Request');
      const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
      const payloadToSign = op.payload(requestId, now);
      await this.store.insertPending(
        {
          requestId,
          platformId: op.context.platformId,
          accountId: op.accountId,
          operation: op.operation,
          targetId: op.targetId,
          bodyDigest: digest,
          payloadToSign,
          expiresAt,
          usedAt: null,
          bound: op.bound ?? {},
        },
        now,
      );
      return { status: 202, body: { payloadToSign, requestId, expiresAt: expiresAt.toISOString(), ...(op.type ? { type: op.type } : {}) } };
    }
    const pending = await this.counted(`signature:${op.accountId}`, now, async () => {
      const found = await this.store.pending(leg.requestId);
      const signerKeys = found ? await op.signerKeys(found, now) : [];
      const checked = checkRetry({
        pending: found,
        operation: op.operation,
        targetId: op.targetId,
        platformId: op.context.platformId,
        bodyDigest: digest,
        stamp: leg.stamp,
        signerKeys,
        now,
      });
      if (!(await this.store.consumePending(leg.requestId, now))) {
        throw new DomainError(
          'INVALID_SIGNATURE',
          'unauthorized',
          `${leg.requestId} was already used; a requestId completes one request only.`,
        );
      }
      return checked;
    });
    try {
      return await complete(pending, now);
    } catch (error) {
      // Refused before anything changed: the caller keeps their signed consent and may send the same retry again.
      if (givesSignedRequestBack(error)) await this.store.releasePending(pending.requestId, op.context.platformId);
      throw error;
    }
  }

  /**
   * The lists take accountId as a filter, and the reference declares no 404 for them: an account
   * that is not an Embedded Wallet of this platform (unknown, another kind, another platform's) has
   * no credentials and no sessions here, so the list is empty, and tells nothing about other platforms.
   */
  async listCredentials(context: RequestContext, accountId: unknown): Promise<{ data: AuthMethodWire[] }> {
    const wallet = await this.listedWallet(accountId, context.platformId);
    return { data: wallet ? (await this.store.credentials(wallet.accountId, context.platformId)).map(renderCredential) : [] };
  }

  async createCredential(
    context: RequestContext,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthMethodResponseWire>> {
    const type = body['type'];
    if (type === 'PASSKEY') return this.createPasskeyCredential(context, body, headers);
    if (type === 'OAUTH') return this.createOauthCredential(context, body, headers);
    if (type !== 'EMAIL_OTP') throw invalidInput('type must be one of OAUTH, EMAIL_OTP, PASSKEY.', { field: 'type' });
    const wallet = await this.wallet(body['accountId'], context.platformId);
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type });
    const customer = await this.store.customer(wallet.customerId);
    if (!customer?.email)
      throw invalidInput('An EMAIL_OTP credential uses the customer’s email, and this customer has none; set it first.', { field: 'type' });
    const email = customer.email;
    const create = async (now: Date): Promise<SignedReply<AuthMethodResponseWire>> => {
      const row: CredentialRow = {
        id: newId('AuthMethod'),
        platformId: context.platformId,
        accountId: wallet.accountId,
        type,
        nickname: email,
        credentialId: null,
        identity: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await this.store.insertCredential(row);
      } catch (error) {
        // The unique index on one EMAIL_OTP per account: a concurrent create won.
        if ((error as { code?: string }).code === '23505')
          throw new DomainError('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS', 'validation', 'This account already has an EMAIL_OTP credential.');
        throw error;
      }
      const otpEncryptionTargetBundle = await this.issueOtp(context, row, now);
      return { status: 201, body: { ...renderCredential(row), otpEncryptionTargetBundle } };
    };
    if (!needsSignature) return create(this.clock.now());
    return this.signed(
      {
        context,
        accountId: wallet.accountId,
        operation: 'CREATE_CREDENTIAL',
        targetId: wallet.accountId,
        body,
        headers,
        type,
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
            context.platformId,
            { userId: wallet.accountId, userEmail: email },
            now,
            requestId,
          ),
        signerKeys: (_pending, now) => this.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (_pending, now) => create(now),
    );
  }

  /** OAUTH: the token is verified on the first call; its identity is bound to the pending request when a signature is needed. */
  private async createOauthCredential(
    context: RequestContext,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthMethodResponseWire>> {
    const wallet = await this.wallet(body['accountId'], context.platformId);
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type: 'OAUTH' });
    const create = async (identity: OidcIdentity, nickname: string, now: Date): Promise<SignedReply<AuthMethodResponseWire>> => {
      const current = await this.store.credentials(wallet.accountId, context.platformId);
      if (current.some((credential) => credential.type === 'OAUTH' && JSON.stringify(credential.identity) === JSON.stringify(identity))) {
        throw invalidInput('This OIDC identity (iss, aud, sub) is already an OAUTH credential of the account.', { field: 'oidcToken' });
      }
      const row: CredentialRow = {
        id: newId('AuthMethod'),
        platformId: context.platformId,
        accountId: wallet.accountId,
        type: 'OAUTH',
        nickname,
        credentialId: null,
        identity,
        createdAt: now,
        updatedAt: now,
      };
      await this.store.insertCredential(row);
      return { status: 201, body: renderCredential(row) };
    };
    if (!needsSignature || isFirstLeg(headers)) {
      const now = this.clock.now();
      const { identity, nickname } = await this.oidcIdentity(context, body['oidcToken'], now);
      if (!needsSignature) return create(identity, nickname, now);
      return this.signed(
        {
          context,
          accountId: wallet.accountId,
          operation: 'CREATE_CREDENTIAL',
          targetId: wallet.accountId,
          body,
          headers,
          type: 'OAUTH',
          bound: { identity, nickname },
          payload: (requestId, issuedAt) =>
            activityPayload(
              'ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS',
              context.platformId,
              { userId: wallet.accountId, oauthProviders: [{ providerName: identity.iss, oidcToken: '(bound)' }] },
              issuedAt,
              requestId,
            ),
          signerKeys: async () => [],
        },
        async () => {
          throw new Error('unreachable: the first leg never completes');
        },
      );
    }
    // Leg 2: the token was checked on leg 1; the body (and so the token) must be the one bound then.
    return this.signed(
      {
        context,
        accountId: wallet.accountId,
        operation: 'CREATE_CREDENTIAL',
        targetId: wallet.accountId,
        body,
        headers,
        type: 'OAUTH',
        payload: () => '',
        signerKeys: (_pending, now) => this.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (pending, now) => create(pending.bound['identity'] as OidcIdentity, String(pending.bound['nickname']), now),
    );
  }

  /** PASSKEY: the attestation is verified against the platform-issued challenge on the first call; the key is bound to the pending request. */
  private async createPasskeyCredential(
    context: RequestContext,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthMethodResponseWire>> {
    const wallet = await this.wallet(body['accountId'], context.platformId);
    const attestation = body['attestation'] as PasskeyAttestation;
    const nickname = String(body['nickname'] ?? '');
    const challenge = String(body['challenge'] ?? '');
    const existing = await this.store.credentials(wallet.accountId, context.platformId);
    const { needsSignature } = decideNewCredential(existing, { type: 'PASSKEY', credentialId: attestation?.credentialId });
    const create = async (key: PasskeyKey, now: Date): Promise<SignedReply<AuthMethodResponseWire>> => {
      decideNewCredential(await this.store.credentials(wallet.accountId, context.platformId), {
        type: 'PASSKEY',
        credentialId: key.credentialId,
      });
      const row: CredentialRow = {
        id: newId('AuthMethod'),
        platformId: context.platformId,
        accountId: wallet.accountId,
        type: 'PASSKEY',
        nickname,
        credentialId: key.credentialId,
        identity: { ...key, registrationChallenge: challenge },
        createdAt: now,
        updatedAt: now,
      };
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
    };
    const signedOp = {
      context,
      accountId: wallet.accountId,
      operation: 'CREATE_CREDENTIAL',
      targetId: wallet.accountId,
      body,
      headers,
      type: 'PASSKEY' as const,
    };
    if (!needsSignature || isFirstLeg(headers)) {
      const key = await registerPasskey(attestation, challenge, this.options.webAuthn);
      if (!needsSignature) return create(key, this.clock.now());
      return this.signed(
        {
          ...signedOp,
          bound: { key },
          payload: (requestId, now) =>
            activityPayload(
              'ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2',
              context.platformId,
              { userId: wallet.accountId, authenticators: [{ authenticatorName: nickname, credentialId: key.credentialId }] },
              now,
              requestId,
            ),
          signerKeys: async () => [],
        },
        async () => {
          throw new Error('unreachable: the first leg never completes');
        },
      );
    }
    return this.signed(
      { ...signedOp, payload: () => '', signerKeys: (_pending, now) => this.activeSessionKeys(wallet.accountId, context.platformId, now) },
      (pending, now) => create(pending.bound['key'] as PasskeyKey, now),
    );
  }

  async revokeCredential(context: RequestContext, credentialId: string, headers: WalletSignatureHeaders): Promise<SignedReply<never>> {
    const credential = await this.credentialOf(credentialId, context.platformId);
    decideRevokeCredential(await this.store.credentials(credential.accountId, context.platformId), credential.id);
    return this.signed(
      {
        context,
        accountId: credential.accountId,
        operation: 'REVOKE_CREDENTIAL',
        targetId: credential.id,
        body: {},
        headers,
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
        signerKeys: (_pending, now) => this.activeSessionKeys(credential.accountId, context.platformId, now, credential.id),
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

  /**
   * A new OTP through the mail port, and the target bundle the client seals it to. The mail goes
   * before the OTP is stored: a send that fails leaves the credential's previous OTP (if one is
   * still mailed and valid) usable, and the client cannot verify before it has this reply anyway.
   */
  private async issueOtp(context: RequestContext, credential: CredentialRow, now: Date): Promise<string> {
    const platform = await this.store.platform(context.platformId);
    const config = (platform?.config ?? {}) as OtpBranding & { otpLength?: number; alphanumeric?: boolean; expirationSeconds?: number };
    const environment = platform?.environment || 'UNKNOWN';
    const mailer = this.mailers[environment as keyof OtpMailers];
    if (!mailer) {
      this.mailMetrics.mails.inc({ environment, outcome: 'unavailable', reason: 'no_transport' });
      this.logger.error(
        { credentialId: credential.id, environment },
        'No mail transport for this platform environment: an OTP challenge answered 503.',
      );
      throw new DomainError(
        'EMAIL_DELIVERY_UNAVAILABLE',
        'unavailable',
        'This Corridor deployment has no mail transport for OTP emails to production customers: ' +
          'its operator must configure an SMTP relay (SMTP_HOST and MAIL_FROM on the accounts service).',
      );
    }
    const code = otpCodeFrom((below) => randomInt(below), config.otpLength ?? 6, config.alphanumeric ?? false);
    const expiresAt = new Date(now.getTime() + (config.expirationSeconds ?? 300) * 1000);
    const otp = { otpCode: code, sentAt: now, expiresAt };
    const mail = {
      platformId: context.platformId,
      accountId: credential.accountId,
      to: credential.nickname,
      ...otp,
      ...composeOtpMail(config, otp),
    };
    await this.deliverOtp(mailer, mail, credential, environment);
    const target = generateP256KeyPair();
    const salt = randomSalt();
    await this.store.saveOtp({
      credentialId: credential.id,
      targetPublic: target.publicKeyHex,
      sealedTargetPrivate: sealAtRest(target.privateKeyHex, this.options.keyEncryptionKey),
      otpDigest: otpDigest(code, salt, this.otpKey),
      otpSalt: salt,
      issuedAt: now,
      expiresAt,
      usedAt: null,
    });
    return otpEncryptionTargetBundle(target.publicKeyHex, context.platformId, credential.accountId, this.bundleSignerOf(environment));
  }

  /** One send through the port: counted, logged with its reason when it fails, and a failure answered 503 saying whose move it is. */
  private async deliverOtp(mailer: OtpMailer, mail: OtpMail, credential: CredentialRow, environment: string): Promise<void> {
    try {
      await mailer.send(mail);
    } catch (error) {
      const { reason, detail } =
        error instanceof MailDeliveryError
          ? error
          : { reason: 'other' as const, detail: error instanceof Error ? error.message : String(error) };
      this.mailMetrics.mails.inc({ environment, outcome: 'failed', reason });
      const where = { credentialId: credential.id, accountId: credential.accountId, environment };
      this.logger.error({ ...where, reason, error: detail }, 'An Embedded Wallet OTP email was not sent: the challenge answered 503.');
      throw new DomainError('EMAIL_DELIVERY_FAILED', 'unavailable', deliveryFailureMessage(reason, mail.from.address), { reason });
    }
    this.mailMetrics.mails.inc({ environment, outcome: 'sent', reason: '' });
    this.logger.info({ credentialId: credential.id, accountId: credential.accountId, environment }, 'Sent an Embedded Wallet OTP email.');
  }

  /** Production bundles are signed by the configured key (the reference's enclave quorum key); sandbox ones never are. */
  private bundleSignerOf(environment: string): BundleSigningKey | null {
    return environment === 'PRODUCTION' ? this.options.exportSigningKey : null;
  }

  async challenge(context: RequestContext, credentialId: string, body: Record<string, unknown>): Promise<AuthMethodResponseWire> {
    const credential = await this.credentialOf(credentialId, context.platformId);
    const now = this.clock.now();
    await this.store.changeAttempts(`challenge:${credential.id}`, (window) => admitAttempt(window, now, CHALLENGE_POLICY));
    if (credential.type === 'PASSKEY') return this.passkeyChallenge(context, credential, body['clientPublicKey'], now);
    if (credential.type !== 'EMAIL_OTP')
      throw invalidInput('OAUTH credentials are not challenged: verify them with a fresh OIDC token.', { field: 'id' });
    return { ...renderCredential(credential), otpEncryptionTargetBundle: await this.issueOtp(context, credential, now) };
  }

  /** PasskeyAuthChallenge: a pending session creation bound to clientPublicKey; the passkey signs the hex SHA-256 of its payload. */
  private async passkeyChallenge(
    context: RequestContext,
    credential: CredentialRow,
    clientPublicKey: unknown,
    now: Date,
  ): Promise<AuthMethodResponseWire> {
    if (typeof clientPublicKey !== 'string' || !CLIENT_PUBLIC_KEY_PATTERN.test(clientPublicKey)) {
      throw invalidInput(
        'clientPublicKey is required for a PASSKEY challenge: an uncompressed P-256 public key in hex (04 followed by 128 hex digits).',
        { field: 'clientPublicKey' },
      );
    }
    const requestId = newId('Request');
    const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
    const payloadToSign = activityPayload(
      'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
      context.platformId,
      { targetPublicKey: clientPublicKey, expirationSeconds: String(this.options.sessionTtlSeconds) },
      now,
      requestId,
    );
    await this.store.insertPending(
      {
        requestId,
        platformId: context.platformId,
        accountId: credential.accountId,
        operation: 'PASSKEY_SESSION',
        targetId: credential.id,
        bodyDigest: '',
        payloadToSign,
        expiresAt,
        usedAt: null,
        bound: { clientPublicKey },
      },
      now,
    );
    return {
      ...renderCredential(credential),
      credentialId: credential.credentialId ?? '',
      challenge: passkeyChallengeOf(payloadToSign),
      requestId,
      expiresAt: expiresAt.toISOString(),
    } as AuthMethodResponseWire;
  }

  /** PASSKEY verify: one call with the challenge's Request-Id; the session key is sealed to the key bound at /challenge. */
  private async verifyPasskey(
    context: RequestContext,
    credential: CredentialRow,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthSessionWire>> {
    const requestId = headers.requestId?.trim();
    if (!requestId)
      throw new DomainError(
        'REQUEST_ID_MISSING',
        'unauthorized',
        'A PASSKEY verify needs the Request-Id header: the requestId of POST /auth/credentials/{id}/challenge.',
      );
    const now = this.clock.now();
    const pending = await this.counted(`verify:${credential.id}`, now, async () => {
      const found = await this.store.pending(requestId);
      if (
        !found ||
        found.platformId !== context.platformId ||
        found.operation !== 'PASSKEY_SESSION' ||
        found.targetId !== credential.id ||
        found.usedAt ||
        found.expiresAt.getTime() <= now.getTime()
      ) {
        throw new DomainError(
          'INVALID_SIGNATURE',
          'unauthorized',
          'Request-Id does not name an unused, unexpired passkey challenge of this credential; call /challenge again.',
        );
      }
      const key = credential.identity as PasskeyKey;
      const assertion = body['assertion'];
      const sandbox = offersSandboxAssertion(assertion) && (await this.isSandbox(context.platformId));
      const counter = sandboxAssertionAccepted(assertion, key, sandbox)
        ? key.counter
        : await authenticatePasskey(assertion as PasskeyAssertion, passkeyChallengeOf(found.payloadToSign), key, this.options.webAuthn);
      if (!(await this.store.consumePending(requestId, now)))
        throw new DomainError('INVALID_SIGNATURE', 'unauthorized', `${requestId} was already used; call /challenge again.`);
      await this.store.updateIdentity(credential.id, { ...credential.identity, counter }, now);
      return found;
    });
    return { status: 200, body: await this.newSealedSession(context, credential, String(pending.bound['clientPublicKey']), now) };
  }

  async verify(
    context: RequestContext,
    credentialId: string,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthSessionWire>> {
    const credential = await this.credentialOf(credentialId, context.platformId);
    if (body['type'] !== credential.type)
      throw invalidInput(`type must be ${credential.type}, the type of credential ${credential.id}.`, { field: 'type' });
    switch (credential.type) {
      case 'OAUTH':
        return this.verifyOauth(context, credential, body);
      case 'PASSKEY':
        return this.verifyPasskey(context, credential, body, headers);
      case 'EMAIL_OTP':
        return this.verifyEmailOtp(context, credential, body, headers);
      default: {
        // The column is text: a row of another type is a broken table, not a request to refuse.
        const unknownType: never = credential.type;
        throw new Error(`Credential ${credential.id} is stored with type ${String(unknownType)}, which no verify handles.`);
      }
    }
  }

  /** EMAIL_OTP verify: leg 1 opens the bundle and uses the OTP; leg 2, signed by the TEK it named, opens a session keyed by that TEK. */
  private async verifyEmailOtp(
    context: RequestContext,
    credential: CredentialRow,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthSessionWire>> {
    const encryptedOtpBundle = body['encryptedOtpBundle'];
    if (typeof encryptedOtpBundle !== 'string' || encryptedOtpBundle.length === 0)
      throw invalidInput('encryptedOtpBundle is required: the HPKE-sealed {"otp_code","public_key"}.', { field: 'encryptedOtpBundle' });
    const now = this.clock.now();
    const attemptsKey = `verify:${credential.id}`;
    refuseWhileLocked(await this.store.attempts(attemptsKey), now);
    let tekPublic = '';
    if (isFirstLeg(headers)) {
      tekPublic = await this.counted(attemptsKey, now, (admitted) =>
        this.checkOtp(context, credential, encryptedOtpBundle, isLastAdmitted(admitted, this.failurePolicy), now),
      );
    }
    return this.signed(
      {
        context,
        accountId: credential.accountId,
        operation: 'VERIFY_EMAIL_OTP',
        targetId: credential.id,
        body,
        headers,
        type: 'EMAIL_OTP',
        bound: { tekPublic },
        payload: (requestId, issuedAt) =>
          new UnsecuredJWT({ public_key: tekPublic, credential_id: credential.id, request_id: requestId })
            .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
            .setExpirationTime(Math.floor((issuedAt.getTime() + CHALLENGE_TTL_MS) / 1000))
            .encode(),
        // Leg 2 is signed with the TEK the OTP bundle named, which then becomes the session key.
        signerKeys: async (pending) => [String(pending.bound['tekPublic'] ?? '')],
      },
      async (pending, completedAt) => {
        const session: SessionRow = {
          id: newId('Session'),
          platformId: context.platformId,
          accountId: credential.accountId,
          credentialId: credential.id,
          publicKey: String(pending.bound['tekPublic']),
          createdAt: completedAt,
          expiresAt: new Date(completedAt.getTime() + this.options.sessionTtlSeconds * 1000),
          revokedAt: null,
        };
        await this.store.insertSession(session);
        return { status: 200, body: renderSession(session, credential) };
      },
    );
  }

  /** OAUTH verify: one call; a fresh token of the registered identity with nonce = sha256(clientPublicKey) gives a session key sealed to clientPublicKey. */
  private async verifyOauth(
    context: RequestContext,
    credential: CredentialRow,
    body: Record<string, unknown>,
  ): Promise<SignedReply<AuthSessionWire>> {
    const clientPublicKey = body['clientPublicKey'];
    if (typeof clientPublicKey !== 'string' || !CLIENT_PUBLIC_KEY_PATTERN.test(clientPublicKey)) {
      throw invalidInput('clientPublicKey must be an uncompressed P-256 public key in hex (04 followed by 128 hex digits).', {
        field: 'clientPublicKey',
      });
    }
    const now = this.clock.now();
    await this.counted(`verify:${credential.id}`, now, () =>
      this.oidcIdentity(context, body['oidcToken'], now, {
        identity: credential.identity as OidcIdentity,
        nonce: nonceFor(clientPublicKey),
      }),
    );
    return { status: 200, body: await this.newSealedSession(context, credential, clientPublicKey, now) };
  }

  /** A fresh session key: its public half kept, its private half sealed to the client and forgotten. */
  private async newSealedSession(
    context: RequestContext,
    credential: CredentialRow,
    clientPublicKey: string,
    now: Date,
  ): Promise<AuthSessionWire> {
    const key = generateP256KeyPair();
    const session: SessionRow = {
      id: newId('Session'),
      platformId: context.platformId,
      accountId: credential.accountId,
      credentialId: credential.id,
      publicKey: compressedPublicKey(key.publicKeyHex),
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.options.sessionTtlSeconds * 1000),
      revokedAt: null,
    };
    await this.store.insertSession(session);
    return renderSession(session, credential, await sealSessionSigningKey(clientPublicKey, key.privateKeyHex));
  }

  /**
   * Leg 1 of an EMAIL_OTP verify (under the credential's failure count): opens the bundle, checks
   * and uses the OTP; returns the TEK (compressed). A wrong guess that was the last the count admits
   * burns the OTP, so no later window can guess the same code: the customer asks for a new one.
   */
  private async checkOtp(
    context: RequestContext,
    credential: CredentialRow,
    encryptedOtpBundle: string,
    lastGuess: boolean,
    now: Date,
  ): Promise<string> {
    const fail = async (): Promise<never> => {
      if (lastGuess) await this.store.burnOtp(credential.id, now);
      throw invalidOtp();
    };
    const otp = await this.store.otp(credential.id);
    if (!otp) return fail();
    const opened = await openOtpBundle(encryptedOtpBundle, openAtRest(otp.sealedTargetPrivate, this.options.keyEncryptionKey));
    if (!opened) return fail();
    const platform = await this.store.platform(context.platformId);
    const digest = otpDigest(opened.otpCode, otp.otpSalt, this.otpKey);
    if (
      !otpAccepted(
        { digestMatches: sameDigest(digest, otp.otpDigest), expiresAt: otp.expiresAt, usedAt: otp.usedAt },
        opened.otpCode,
        platform?.environment === 'SANDBOX',
        now,
      )
    )
      return fail();
    // Single use: the OTP row is consumed whatever code (issued or sandbox) opened it.
    if (!(await this.store.useOtp(credential.id, otp.otpDigest, now))) return fail();
    return compressedPublicKey(opened.publicKey);
  }

  async listSessions(context: RequestContext, accountId: unknown): Promise<{ data: AuthSessionWire[] }> {
    const wallet = await this.listedWallet(accountId, context.platformId);
    if (!wallet) return { data: [] };
    const now = this.clock.now();
    const credentials = new Map(
      (await this.store.credentials(wallet.accountId, context.platformId)).map((credential) => [credential.id, credential]),
    );
    const sessions = (await this.store.sessions(wallet.accountId, context.platformId)).filter((session) => isActive(session, now));
    return {
      data: sessions.flatMap((session) =>
        credentials.has(session.credentialId) ? [renderSession(session, credentials.get(session.credentialId)!)] : [],
      ),
    };
  }

  private async activeSession(sessionId: string, platformId: string): Promise<{ session: SessionRow; credential: CredentialRow }> {
    const session = isIdOf('Session', sessionId) ? await this.store.session(sessionId, platformId) : null;
    if (!session || !isActive(session, this.clock.now())) throw notFound('Active session', sessionId);
    const credential = await this.store.credential(session.credentialId, platformId);
    if (!credential) throw notFound('Active session', sessionId);
    return { session, credential };
  }

  async revokeSession(context: RequestContext, sessionId: string, headers: WalletSignatureHeaders): Promise<SignedReply<never>> {
    const { session, credential } = await this.activeSession(sessionId, context.platformId);
    return this.signed(
      {
        context,
        accountId: session.accountId,
        operation: 'REVOKE_SESSION',
        targetId: session.id,
        body: {},
        headers,
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
        signerKeys: (_pending, now) => this.activeSessionKeys(session.accountId, context.platformId, now),
      },
      async (_pending, now) => {
        await this.store.revokeSession(session.id, now);
        return { status: 204 };
      },
    );
  }

  async refreshSession(
    context: RequestContext,
    sessionId: string,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<AuthSessionWire>> {
    const clientPublicKey = body['clientPublicKey'];
    if (typeof clientPublicKey !== 'string' || !CLIENT_PUBLIC_KEY_PATTERN.test(clientPublicKey)) {
      throw invalidInput('clientPublicKey must be an uncompressed P-256 public key in hex (04 followed by 128 hex digits).', {
        field: 'clientPublicKey',
      });
    }
    const { session, credential } = await this.activeSession(sessionId, context.platformId);
    return this.signed(
      {
        context,
        accountId: session.accountId,
        operation: 'REFRESH_SESSION',
        targetId: session.id,
        body: { clientPublicKey: clientPublicKey.toLowerCase() },
        headers,
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
        return { status: 201, body: await this.newSealedSession(context, credential, clientPublicKey, now) };
      },
    );
  }

  /** Signs any wallet operation with the account's active sessions: PATCH and export of the internal account. */
  async signedByWallet<T>(
    context: RequestContext,
    accountId: string,
    operation: string,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
    activity: { type: string; parameters: Record<string, unknown> },
    complete: (now: Date) => Promise<SignedReply<T>>,
  ): Promise<SignedReply<T>> {
    const wallet = await this.wallet(accountId, context.platformId);
    return this.signed(
      {
        context,
        accountId: wallet.accountId,
        operation,
        targetId: wallet.accountId,
        body,
        headers,
        payload: (requestId, now) => activityPayload(activity.type, context.platformId, activity.parameters, now, requestId),
        signerKeys: (_pending, now) => this.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      (_pending, now) => complete(now),
    );
  }

  async exportWallet(
    context: RequestContext,
    accountId: string,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<{ id: string; encryptedWalletCredentials: string }>> {
    const clientPublicKey = body['clientPublicKey'];
    if (typeof clientPublicKey !== 'string' || !CLIENT_PUBLIC_KEY_PATTERN.test(clientPublicKey)) {
      throw invalidInput('clientPublicKey must be an uncompressed P-256 public key in hex (04 followed by 128 hex digits).', {
        field: 'clientPublicKey',
      });
    }
    return this.signedByWallet(
      context,
      accountId,
      'EXPORT_WALLET',
      { clientPublicKey: clientPublicKey.toLowerCase() },
      headers,
      { type: 'ACTIVITY_TYPE_EXPORT_WALLET', parameters: { walletId: accountId, targetPublicKey: clientPublicKey } },
      async () => {
        const sealed = await this.store.sealedMnemonic(accountId, context.platformId);
        if (!sealed) throw notFound('Embedded Wallet account', accountId);
        const mnemonic = openAtRest(sealed, this.options.keyEncryptionKey);
        const signer = this.bundleSignerOf((await this.store.platform(context.platformId))?.environment ?? '');
        this.logger.info({ accountId, signed: signer !== null }, 'Exported an Embedded Wallet to its client key.');
        const encryptedWalletCredentials = await exportBundle(clientPublicKey, mnemonic, context.platformId, signer);
        return { status: 200, body: { id: accountId, encryptedWalletCredentials } };
      },
    );
  }

  /**
   * The single signed call of quote execution: no 202 leg and no Request-Id; the stamp must be by an
   * active session of the wallet over the quote's exact payloadToSign. With a grant, the verified
   * stamp leaves the wallet's consent to that transaction's hold, which the ledger requires.
   */
  async verifyStamp(context: RequestContext, data: VerifyWalletStampData): Promise<{ verified: true }> {
    const { accountId, payloadToSign, walletSignature, grant } = data;
    const wallet = await this.wallet(accountId, context.platformId);
    const amount = grant === undefined ? undefined : parseLedgerAmount(grant.amount, 'grant.amount');
    if (!walletSignature?.trim()) {
      throw new DomainError(
        'WALLET_SIGNATURE_MISSING',
        'unauthorized',
        'Executing a quote from an Embedded Wallet needs Grid-Wallet-Signature: a stamp over the quote’s paymentInstructions[].accountOrWalletInfo.payloadToSign.',
      );
    }
    const now = this.clock.now();
    // The reference's sandbox value stands in for the stamp on sandbox platforms (section (f)).
    const sandbox = offersSandboxSignature(walletSignature) && (await this.isSandbox(context.platformId));
    if (!sandbox) await this.checkStamp(context, wallet.accountId, payloadToSign, walletSignature, now);
    if (grant !== undefined && amount !== undefined) {
      const consent = {
        platformId: context.platformId,
        accountId: wallet.accountId,
        transactionId: grant.transactionId,
        amount,
        currency: grant.currency,
      };
      await this.consents.grantTransaction({ ...consent, consentId: newId('Consent'), now });
    }
    return { verified: true };
  }

  private async checkStamp(context: RequestContext, accountId: string, payloadToSign: string, signature: string, now: Date): Promise<void> {
    const stamp = parseStamp(signature.trim());
    if (!stamp)
      throw new DomainError(
        'WALLET_SIGNATURE_MALFORMED',
        'unauthorized',
        'Grid-Wallet-Signature must be base64url of {"publicKey","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature"}.',
      );
    // The same counter as the wallet's signed retries: stamps guessed here or there lock both.
    await this.counted(`signature:${accountId}`, now, async () => {
      const signers = await this.activeSessionKeys(accountId, context.platformId, now);
      if (!signers.includes(stamp.publicKey) || !verifyStamp(stamp, payloadToSign)) {
        throw new DomainError(
          'WALLET_SIGNATURE_INVALID',
          'unauthorized',
          'The stamp is not a signature over the quote’s payloadToSign by an active session of the source wallet.',
        );
      }
    });
  }

  /**
   * PATCH /customers/{id} changing the email of a customer whose wallet has EMAIL_OTP credentials:
   * the wallet's signed retry first (the whole update body and the tied credentials bound), then on
   * leg 2 the credentials take the new email before the customers service changes it
   * (email-change.ts). Any other update proceeds at once.
   */
  async authorizeEmailChange(
    context: RequestContext,
    customerId: string,
    body: Record<string, unknown>,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<WalletAuthorization>> {
    const proceed: SignedReply<WalletAuthorization> = { status: 200, body: { proceed: true } };
    const email = body['email'];
    if (typeof email !== 'string') return proceed;
    const wallet = await this.store.walletOfCustomer(customerId, context.platformId);
    if (!wallet) return proceed;
    const tied = (await this.store.credentials(wallet.accountId, context.platformId))
      .filter((credential) => credential.type === 'EMAIL_OTP')
      .map((credential) => credential.id);
    const { needsSignature } = decideEmailChange({
      newEmail: email,
      currentEmail: (await this.store.customer(customerId))?.email ?? null,
      tiedCredentialIds: tied,
      emailTakenElsewhere: await this.store.emailOtpTakenElsewhere(context.platformId, email, wallet.accountId),
      retry: !isFirstLeg(headers),
    });
    if (!needsSignature) return proceed;
    return this.signed(
      {
        context,
        accountId: wallet.accountId,
        operation: 'UPDATE_CUSTOMER_EMAIL',
        targetId: customerId,
        body,
        headers,
        bound: { tiedCredentialIds: tiedSet(tied) },
        payload: (requestId, now) =>
          activityPayload(
            'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
            context.platformId,
            { userId: wallet.accountId, userEmail: email },
            now,
            requestId,
          ),
        signerKeys: (_pending, now) => this.activeSessionKeys(wallet.accountId, context.platformId, now),
      },
      async (pending, now) => {
        const boundCredentialIds = (pending.bound['tiedCredentialIds'] ?? []) as string[];
        await this.store.renameTiedCredentials(
          { accountId: wallet.accountId, platformId: context.platformId, email, now },
          (current) =>
            decideEmailSync({
              boundCredentialIds,
              currentCredentialIds: current.credentialIds,
              newEmail: email,
              emailTakenElsewhere: current.emailTakenElsewhere,
            }),
          checkEmailSynced,
        );
        return { status: 200, body: { proceed: true, consumedRequestId: pending.requestId } };
      },
    );
  }

  /** The first Embedded Wallet of the platform among the account ids, or null. */
  private async firstWallet(accountIds: readonly string[], platformId: string): Promise<{ accountId: string } | null> {
    for (const accountId of new Set(accountIds)) {
      const wallet =
        typeof accountId === 'string' && isIdOf('InternalAccount', accountId) ? await this.store.walletOf(accountId, platformId) : null;
      if (wallet) return wallet;
    }
    return null;
  }

  /**
   * Wallet money committed outside a quote (a card created or changed, a transfer out): the signed
   * retry of the first wallet among accountIds, or proceed. Leg 1 decides what the owner signs for
   * (signed-consent.ts), fixing a new card's or transfer's id and naming it in the payload; leg 2,
   * once the stamp verifies, leaves the consent the ledger requires (decision 0020).
   */
  async authorizeWalletFundedChange(
    context: RequestContext,
    data: WalletFundedChangeData,
    headers: WalletSignatureHeaders,
  ): Promise<SignedReply<WalletAuthorization>> {
    const wallet = await this.firstWallet(data.accountIds, context.platformId);
    if (!wallet) return { status: 200, body: { proceed: true } };
    const walletId = wallet.accountId;
    // Only leg 1's plan is kept (bound to the pending request); leg 2 reads it back from there.
    const plan = isFirstLeg(headers) ? consentPlanOf(data, walletId, newId) : null;
    return this.signed(
      {
        context,
        accountId: walletId,
        operation: data.operation,
        targetId: data.targetId,
        body: data.body,
        headers,
        bound: plan ? { plan } : {},
        payload: (requestId, now) =>
          activityPayload(plan?.activity.type ?? '', context.platformId, plan?.activity.parameters ?? {}, now, requestId),
        signerKeys: (_pending, now) => this.activeSessionKeys(walletId, context.platformId, now),
      },
      async (pending, now) => {
        const signed = pending.bound['plan'] as ConsentPlan;
        await this.grant(context.platformId, walletId, signed, pending.requestId, now);
        return {
          status: 200,
          body: {
            proceed: true,
            consumedRequestId: pending.requestId,
            ...(signed.answersResourceId ? { resourceId: signed.resourceId } : {}),
          },
        };
      },
    );
  }

  /** The consent a verified signed retry leaves for the ledger: to fund the card, or to the transfer's one hold. */
  private async grant(platformId: string, accountId: string, plan: ConsentPlan, consentId: string, now: Date): Promise<void> {
    if (plan.grant?.kind === 'CARD') await this.consents.grantCard({ platformId, accountId, cardId: plan.resourceId, consentId, now });
    if (plan.grant?.kind === 'TRANSACTION') {
      await this.consents.grantTransaction({
        platformId,
        accountId,
        transactionId: plan.resourceId,
        amount: BigInt(plan.grant.amount),
        currency: WALLET_CURRENCY,
        consentId,
        now,
      });
    }
  }

  /**
   * The change a signed request authorized was refused by the service that applies it (a customer
   * update, a card PATCH): the request is unused again until it expires, so the caller's signed
   * consent is not lost to a refusal that changed nothing. Only requests that complete outside
   * accounts can be given back this way.
   */
  async releaseSignedRequest(context: RequestContext, requestId: string): Promise<{ released: boolean }> {
    const released = await this.store.releasePending(requestId, context.platformId, DOWNSTREAM_OPERATIONS);
    if (!released) return { released };
    const pending = await this.store.pending(requestId);
    if (pending?.operation === 'UPDATE_CUSTOMER_EMAIL') {
      // Leg 2 gave the tied credentials the new email; the customer keeps the old one, and so do they.
      const customer = await this.store.customer(pending.targetId);
      if (customer?.email) await this.store.renameEmailCredential(pending.accountId, customer.email, this.clock.now());
    }
    this.logger.info({ requestId }, 'Gave a signed request back: the change it authorized was refused downstream.');
    return { released };
  }

  async sandboxMailbox(context: RequestContext, accountId: unknown): Promise<{ data: SandboxMailWire[] }> {
    const platform = await this.store.platform(context.platformId);
    if (platform?.environment !== 'SANDBOX')
      throw new DomainError('FORBIDDEN', 'forbidden', 'The sandbox mailbox exists for sandbox platforms only.');
    const wallet = await this.wallet(accountId, context.platformId);
    const mail = await this.mailbox.inbox(wallet.accountId, context.platformId, this.clock.now());
    return { data: mail.map((item) => ({ to: item.to, subject: item.subject, otpCode: item.otpCode, sentAt: item.sentAt.toISOString() })) };
  }
}
