import { Inject, Injectable } from '@nestjs/common';
import {
  type AuthMethodResponseWire,
  type AuthSessionWire,
  CLOCK,
  type Clock,
  DomainError,
  invalidInput,
  newId,
  type RequestContext,
  type SignedReply,
} from '@corridor/contracts';
import { UnsecuredJWT } from 'jose';
import { isLastAdmitted, otpAccepted, refuseWhileLocked } from './auth-rules';
import { FailureCounter } from './failure-counter';
import { nonceFor, type OidcIdentity } from './oidc';
import {
  authenticatePasskey,
  offersSandboxAssertion,
  passkeyChallengeOf,
  type PasskeyAssertion,
  type PasskeyKey,
  sandboxAssertionAccepted,
} from './passkeys';
import { CHALLENGE_TTL_MS, isFirstLeg } from './signed-retry';
import { SignedRequests } from './signed-requests';
import { type ChallengeCredentialCommand, requireClientPublicKey, type VerifyCredentialCommand } from './wallet-commands';
import { compressedPublicKey, openAtRest, openOtpBundle, sameDigest } from './wallet-crypto';
import { WALLET_OPTIONS, WALLET_STORE, WalletLookups, type WalletOptions } from './wallet-lookups';
import { WalletOidc } from './wallet-oidc';
import { WalletOtpMail } from './wallet-otp-mail';
import { WalletSessions } from './wallet-sessions';
import type { CredentialRow, WalletStore } from './wallet-store';
import { activityPayload, renderCredential } from './wallet-wire';

type SessionReply = SignedReply<AuthSessionWire>;

const invalidOtp = (): DomainError => new DomainError('UNAUTHORIZED', 'unauthorized', 'Invalid OTP code', { reason: 'Invalid OTP code' });

/**
 * Signing in with a credential: /challenge (an OTP mailed, or a passkey challenge) and /verify, which
 * opens a session: OAUTH in one call, PASSKEY with the challenge's Request-Id, EMAIL_OTP by the
 * signed retry. Every verify counts toward the credential's failure lock.
 */
@Injectable()
export class WalletSignIn {
  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly lookups: WalletLookups,
    private readonly failures: FailureCounter,
    private readonly signer: SignedRequests,
    private readonly otpMail: WalletOtpMail,
    private readonly oidc: WalletOidc,
    private readonly sessions: WalletSessions,
  ) {}

  async challenge(context: RequestContext, command: ChallengeCredentialCommand): Promise<AuthMethodResponseWire> {
    const credential = await this.lookups.credential(command.credentialId, context.platformId);
    const now = this.clock.now();
    await this.failures.admitChallenge(credential.id, now);
    if (credential.type === 'PASSKEY') return this.passkeyChallenge(context, credential, command.clientPublicKey, now);
    if (credential.type !== 'EMAIL_OTP')
      throw invalidInput('OAUTH credentials are not challenged: verify them with a fresh OIDC token.', { field: 'id' });
    return { ...renderCredential(credential), otpEncryptionTargetBundle: await this.otpMail.issue(context, credential, now) };
  }

  /** PasskeyAuthChallenge: a pending session creation bound to clientPublicKey; the passkey signs the hex SHA-256 of its payload. */
  private async passkeyChallenge(
    context: RequestContext,
    credential: CredentialRow,
    requested: string | undefined,
    now: Date,
  ): Promise<AuthMethodResponseWire> {
    const clientPublicKey = requireClientPublicKey(
      requested,
      'clientPublicKey is required for a PASSKEY challenge: an uncompressed P-256 public key in hex',
    );
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

  async verify(context: RequestContext, command: VerifyCredentialCommand): Promise<SessionReply> {
    const credential = await this.lookups.credential(command.credentialId, context.platformId);
    if (command.type !== credential.type)
      throw invalidInput(`type must be ${credential.type}, the type of credential ${credential.id}.`, { field: 'type' });
    switch (credential.type) {
      case 'OAUTH':
        return this.verifyOauth(context, credential, command);
      case 'PASSKEY':
        return this.verifyPasskey(context, credential, command);
      case 'EMAIL_OTP':
        return this.verifyEmailOtp(context, credential, command);
      default: {
        // The column is text: a row of another type is a broken table, not a request to refuse.
        const unknownType: never = credential.type;
        throw new Error(`Credential ${credential.id} is stored with type ${String(unknownType)}, which no verify handles.`);
      }
    }
  }

  /**
   * OAUTH verify: one call; a fresh token of the registered identity with nonce
   * = sha256(clientPublicKey) gives a session key sealed to clientPublicKey.
   */
  private async verifyOauth(context: RequestContext, credential: CredentialRow, command: VerifyCredentialCommand): Promise<SessionReply> {
    const clientPublicKey = requireClientPublicKey(command.clientPublicKey);
    const now = this.clock.now();
    await this.failures.counted(`verify:${credential.id}`, now, () =>
      this.oidc.identity(context, command.oidcToken, now, {
        identity: credential.identity as OidcIdentity,
        nonce: nonceFor(clientPublicKey),
      }),
    );
    return { status: 200, body: await this.sessions.openSealed(context, credential, clientPublicKey, now) };
  }

  /** PASSKEY verify: one call with the challenge's Request-Id; the session key is sealed to the key bound at /challenge. */
  private async verifyPasskey(context: RequestContext, credential: CredentialRow, command: VerifyCredentialCommand): Promise<SessionReply> {
    const requestId = command.headers.requestId?.trim();
    if (!requestId)
      throw new DomainError(
        'REQUEST_ID_MISSING',
        'unauthorized',
        'A PASSKEY verify needs the Request-Id header: the requestId of POST /auth/credentials/{id}/challenge.',
      );
    const now = this.clock.now();
    const pending = await this.failures.counted(`verify:${credential.id}`, now, async () => {
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
      const { assertion } = command;
      const sandbox = offersSandboxAssertion(assertion) && (await this.lookups.isSandbox(context.platformId));
      const counter = sandboxAssertionAccepted(assertion, key, sandbox)
        ? key.counter
        : await authenticatePasskey(assertion as PasskeyAssertion, passkeyChallengeOf(found.payloadToSign), key, this.options.webAuthn);
      if (!(await this.store.consumePending(requestId, now)))
        throw new DomainError('INVALID_SIGNATURE', 'unauthorized', `${requestId} was already used; call /challenge again.`);
      await this.store.updateIdentity(credential.id, { ...credential.identity, counter }, now);
      return found;
    });
    return { status: 200, body: await this.sessions.openSealed(context, credential, String(pending.bound['clientPublicKey']), now) };
  }

  /** EMAIL_OTP verify: leg 1 opens the bundle and uses the OTP; leg 2, signed by the TEK it named, opens a session keyed by that TEK. */
  private async verifyEmailOtp(
    context: RequestContext,
    credential: CredentialRow,
    command: VerifyCredentialCommand,
  ): Promise<SessionReply> {
    const { encryptedOtpBundle } = command;
    if (encryptedOtpBundle === undefined || encryptedOtpBundle.length === 0)
      throw invalidInput('encryptedOtpBundle is required: the HPKE-sealed {"otp_code","public_key"}.', { field: 'encryptedOtpBundle' });
    const now = this.clock.now();
    const attemptsKey = `verify:${credential.id}`;
    refuseWhileLocked(await this.store.attempts(attemptsKey), now);
    let tekPublic = '';
    if (isFirstLeg(command.headers)) {
      tekPublic = await this.failures.counted(attemptsKey, now, (admitted) =>
        this.checkOtp(context, credential, encryptedOtpBundle, isLastAdmitted(admitted, this.failures.policy), now),
      );
    }
    return this.signer.signed(
      {
        context,
        accountId: credential.accountId,
        operation: 'VERIFY_EMAIL_OTP',
        targetId: credential.id,
        body: command.body,
        headers: command.headers,
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
      async (pending, completedAt) => ({
        status: 200,
        body: await this.sessions.open(context, credential, String(pending.bound['tekPublic']), completedAt),
      }),
    );
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
    const digest = this.otpMail.digestOf(opened.otpCode, otp.otpSalt);
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
}
