import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock, DomainError, type RequestContext, type SandboxMailWire } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import { otpCodeFrom } from './auth-rules';
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
import { SandboxMailbox } from './sandbox-mailbox';
import { generateP256KeyPair, otpDigest, otpDigestKey, otpEncryptionTargetBundle, randomSalt, sealAtRest } from './wallet-crypto';
import { bundleSignerOf, WALLET_LOGGER, WALLET_OPTIONS, WALLET_STORE, WalletLookups, type WalletOptions } from './wallet-lookups';
import type { CredentialRow, WalletStore } from './wallet-store';

type OtpConfig = OtpBranding & { otpLength?: number; alphanumeric?: boolean; expirationSeconds?: number };

/** EMAIL_OTP codes: issued and mailed through the platform environment's mailer; a sandbox platform's mail read back from its mailbox. */
@Injectable()
export class WalletOtpMail {
  private readonly logger = createLogger(WALLET_LOGGER);
  /** The HMAC key of OTP digests, derived from the key-encryption key (never the key itself). */
  private readonly otpKey: Buffer;

  constructor(
    @Inject(WALLET_STORE) private readonly store: WalletStore,
    @Inject(WALLET_OPTIONS) private readonly options: WalletOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(OTP_MAILERS) private readonly mailers: OtpMailers,
    private readonly mailbox: SandboxMailbox,
    private readonly mailMetrics: OtpMailMetrics,
    private readonly lookups: WalletLookups,
  ) {
    this.otpKey = otpDigestKey(options.keyEncryptionKey);
    if (!options.smtp) {
      this.logger.warn(
        'No SMTP relay is configured (SMTP_HOST, MAIL_FROM): production platforms’ EMAIL_OTP challenges answer 503 ' +
          'EMAIL_DELIVERY_UNAVAILABLE.',
      );
    }
  }

  /**
   * A new OTP through the mail port, and the target bundle the client seals it to. The mail goes
   * before the OTP is stored: a send that fails leaves the credential's previous OTP (if one is
   * still mailed and valid) usable, and the client cannot verify before it has this reply anyway.
   */
  async issue(context: RequestContext, credential: CredentialRow, now: Date): Promise<string> {
    const platform = await this.store.platform(context.platformId);
    const config = (platform?.config ?? {}) as OtpConfig;
    const environment = platform?.environment || 'UNKNOWN';
    const mailer = this.mailerOf(environment, credential);
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
    await this.deliver(mailer, mail, credential, environment);
    const target = generateP256KeyPair();
    const salt = randomSalt();
    await this.store.saveOtp({
      credentialId: credential.id,
      targetPublic: target.publicKeyHex,
      sealedTargetPrivate: sealAtRest(target.privateKeyHex, this.options.keyEncryptionKey),
      otpDigest: this.digestOf(code, salt),
      otpSalt: salt,
      issuedAt: now,
      expiresAt,
      usedAt: null,
    });
    const signer = bundleSignerOf(this.options, environment);
    return otpEncryptionTargetBundle(target.publicKeyHex, context.platformId, credential.accountId, signer);
  }

  /** The digest an issued code is stored as, and a code opened from a client's bundle is compared by. */
  digestOf(code: string, salt: string): string {
    return otpDigest(code, salt, this.otpKey);
  }

  /** The environment's mailer, or 503 EMAIL_DELIVERY_UNAVAILABLE (counted and logged) when the deployment has none. */
  private mailerOf(environment: string, credential: CredentialRow): OtpMailer {
    const mailer = this.mailers[environment as keyof OtpMailers];
    if (mailer) return mailer;
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

  /** One send through the port: counted, logged with its reason when it fails, and a failure answered 503 saying whose move it is. */
  private async deliver(mailer: OtpMailer, mail: OtpMail, credential: CredentialRow, environment: string): Promise<void> {
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

  /** A sandbox platform's mail to one wallet while its codes are valid; 403 on production platforms. */
  async sandboxMailbox(context: RequestContext, accountId: string): Promise<{ data: SandboxMailWire[] }> {
    const platform = await this.store.platform(context.platformId);
    if (platform?.environment !== 'SANDBOX')
      throw new DomainError('FORBIDDEN', 'forbidden', 'The sandbox mailbox exists for sandbox platforms only.');
    const wallet = await this.lookups.wallet(accountId, context.platformId);
    const mail = await this.mailbox.inbox(wallet.accountId, context.platformId, this.clock.now());
    return { data: mail.map((item) => ({ to: item.to, subject: item.subject, otpCode: item.otpCode, sentAt: item.sentAt.toISOString() })) };
  }
}
