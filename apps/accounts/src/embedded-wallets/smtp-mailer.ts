import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type { PartHealth } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';
import type { SmtpConfig } from './mail-config';
import { type DeliveryFailureReason, MailDeliveryError, type OtpMail, type OtpMailer } from './otp-mail';

// Production platforms' OtpMailer: the deployment's SMTP relay, through nodemailer (a maintained
// client that speaks STARTTLS, AUTH, pooling and SMTP's error replies, which hand-written socket
// code would get wrong). The relay decides whether a platform's sendFromEmailAddress may be used;
// a refusal comes back as the reason `sender`, which the platform can act on.

/** Connections kept open to the relay; OTP mail is light, and more would only hold the relay's slots. */
const POOL_CONNECTIONS_MAX = 4;
/** Mails sent over one connection before it is replaced, so a long-lived connection is renewed now and then. */
const POOL_MESSAGES_PER_CONNECTION_MAX = 100;

type TransportError = { code?: unknown; originalCode?: unknown; command?: unknown; responseCode?: unknown; message?: unknown };

/** Email addresses are left out of what is logged: the reason matters, not whose mail it was. */
const withoutAddresses = (text: string): string => text.replace(/[^\s<>"'@:]+@[^\s<>"',;]+/g, '<address>');

/** The reason of a failed send, from nodemailer's error code and the SMTP command that failed. */
export const deliveryFailureOf = (error: unknown): { reason: DeliveryFailureReason; detail: string } => {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as TransportError;
  const code = typeof failure.code === 'string' ? failure.code : '';
  const command = typeof failure.command === 'string' ? failure.command : '';
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  const detail = withoutAddresses(`${code || 'Error'}${command ? ` at ${command}` : ''}: ${message}`);
  const reasonOf = (): DeliveryFailureReason => {
    if (code === 'ETIMEDOUT' || failure.originalCode === 'ETIMEDOUT') return 'timeout';
    if (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'EDNS' || code === 'EPROXY') return 'connection';
    if (code === 'ETLS' || code === 'EREQUIRETLS') return 'tls';
    if (code === 'EAUTH' || code === 'ENOAUTH') return 'auth';
    if (code === 'EENVELOPE' && (command === 'MAIL FROM' || message.startsWith('Invalid sender'))) return 'sender';
    if (code === 'EENVELOPE' && (command === 'RCPT TO' || message.startsWith('Invalid recipient'))) return 'recipient';
    if (code === 'EENVELOPE' || code === 'EMESSAGE') return 'refused';
    return 'other';
  };
  return { reason: reasonOf(), detail };
};

/** The From of a mail: the platform's sendFromEmailAddress, or the deployment's MAIL_FROM; the platform's sender name either way. */
export const senderOf = (mail: Pick<OtpMail, 'from'>, config: Pick<SmtpConfig, 'from'>): { name: string; address: string } => ({
  name: mail.from.name,
  address: mail.from.address ?? config.from.address,
});

export class SmtpMailer implements OtpMailer, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('accounts:smtp-mailer');
  private readonly transport: Transporter;
  private lastSentAt: Date | null = null;
  private lastFailure: { at: Date; reason: DeliveryFailureReason; detail: string } | null = null;

  constructor(private readonly config: SmtpConfig) {
    this.transport = nodemailer.createTransport({
      pool: true,
      maxConnections: POOL_CONNECTIONS_MAX,
      maxMessages: POOL_MESSAGES_PER_CONNECTION_MAX,
      host: config.host,
      port: config.port,
      secure: config.secure,
      requireTLS: !config.secure && config.requireTls,
      ...(config.auth ? { auth: { user: config.auth.user, pass: config.auth.pass } } : {}),
      connectionTimeout: config.timeoutMs,
      greetingTimeout: config.timeoutMs,
      socketTimeout: config.timeoutMs,
      dnsTimeout: config.timeoutMs,
      // The mail is built here from text; nothing in it may make nodemailer read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(mail: OtpMail): Promise<void> {
    try {
      await this.withDeadline(
        this.transport.sendMail({
          // The envelope sender is the deployment's own address: bounces go to the operator, not to a platform's noreply.
          envelope: { from: this.config.from.address, to: [mail.to] },
          from: senderOf(mail, this.config),
          ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          // RFC 3834: an automatic message, so auto-responders do not answer it.
          headers: { 'Auto-Submitted': 'auto-generated' },
        }),
      );
      this.lastSentAt = new Date();
    } catch (error) {
      const { reason, detail } = deliveryFailureOf(error);
      this.lastFailure = { at: new Date(), reason, detail };
      throw new MailDeliveryError(reason, detail);
    }
  }

  /**
   * nodemailer's timeouts bound each step; this bounds the whole send, so a relay that answers each
   * step just in time cannot hold the challenge past SMTP_TIMEOUT_MS. The mail may still leave
   * after the deadline, which the client then sees as a failed send and asks again.
   */
  private async withDeadline<T>(sending: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      const timedOut = Object.assign(new Error(`no answer from the relay within ${this.config.timeoutMs} ms`), { code: 'ETIMEDOUT' });
      timer = setTimeout(() => reject(timedOut), this.config.timeoutMs);
    });
    try {
      return await Promise.race([sending, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the relay answers and takes the credentials; throws a MailDeliveryError saying why not. */
  async verify(): Promise<void> {
    try {
      await this.withDeadline(this.transport.verify());
    } catch (error) {
      const { reason, detail } = deliveryFailureOf(error);
      throw new MailDeliveryError(reason, detail);
    }
  }

  /** /health part `mail`: degraded while the last send failed, with its reason; ok again after the next success. */
  health(): PartHealth {
    const failing = this.lastFailure !== null && (this.lastSentAt === null || this.lastFailure.at > this.lastSentAt);
    return {
      status: failing ? 'degraded' : 'ok',
      transport: 'smtp',
      relay: `${this.config.host}:${this.config.port}`,
      ...(this.lastSentAt ? { lastSentAt: this.lastSentAt.toISOString() } : {}),
      ...(failing && this.lastFailure
        ? { lastFailedAt: this.lastFailure.at.toISOString(), reason: this.lastFailure.reason, error: this.lastFailure.detail }
        : {}),
    };
  }

  /** Says at start whether the relay answers, without holding the start: a relay that is down now may be up by the first challenge. */
  onApplicationBootstrap(): void {
    const relay = `${this.config.host}:${this.config.port}`;
    this.verify().then(
      () => this.logger.info({ relay, from: this.config.from.address }, 'The SMTP relay answers: production OTP mail goes through it.'),
      (error: MailDeliveryError) =>
        this.logger.error(
          { relay, reason: error.reason, error: error.detail },
          'The SMTP relay does not answer as configured (SMTP_*): production OTP challenges will answer 503 until it does.',
        ),
    );
  }

  onApplicationShutdown(): void {
    // The pool keeps connections to the relay open; closing them lets the process exit.
    this.transport.close();
  }
}
