import type { PlatformEnvironment } from '@corridor/contracts';

// The port OTP emails leave through. The service decides the code, its expiry, the address and
// the mail's words (composeOtpMail, from the platform's embeddedWalletConfig); an adapter only
// delivers. Sandbox platforms' adapter is the mailbox a developer or a test reads
// (sandbox-mailbox.ts); production platforms' is the SMTP relay (smtp-mailer.ts) when the
// deployment configures one, and a challenge on a platform whose environment has no mailer answers
// 503 EMAIL_DELIVERY_UNAVAILABLE.

export type OtpMail = {
  platformId: string;
  accountId: string;
  to: string;
  /** The platform's sender: sendFromEmailAddress (null: the deployment's MAIL_FROM) and sendFromEmailSenderName. */
  from: { name: string; address: string | null };
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
  otpCode: string;
  sentAt: Date;
  expiresAt: Date;
};

/** Why a mail did not leave, in words an operator acts on; `sender` and `recipient` are the platform's to fix. */
export type DeliveryFailureReason = 'connection' | 'timeout' | 'tls' | 'auth' | 'sender' | 'recipient' | 'refused' | 'other';

/** What an adapter throws when a mail did not leave: the reason, and the transport's own words for the log. */
export class MailDeliveryError extends Error {
  constructor(
    readonly reason: DeliveryFailureReason,
    readonly detail: string,
  ) {
    super(`OTP mail not delivered (${reason}): ${detail}`);
    this.name = 'MailDeliveryError';
  }
}

export interface OtpMailer {
  /** Delivers one OTP email; throws (a MailDeliveryError when it knows why) when it could not. */
  send(mail: OtpMail): Promise<void>;
}

/** The mailer of each platform environment; an environment without one cannot be sent OTPs. */
export type OtpMailers = Partial<Record<PlatformEnvironment, OtpMailer>>;
export const OTP_MAILERS = 'OTP_MAILERS';

/** The members of embeddedWalletConfig that shape the OTP email (reference EmbeddedWalletConfig). */
export type OtpBranding = {
  appName?: string;
  sendFromEmailAddress?: string;
  sendFromEmailSenderName?: string;
  replyToEmailAddress?: string;
  logoUrl?: string;
};

/** The reference's default sender name. */
const DEFAULT_SENDER_NAME = 'Notifications';

const text = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  // Control characters (a line break above all) have no place in a header or a one-line name.
  const cleaned = value.replace(/\p{Cc}+/gu, ' ').trim();
  return cleaned === '' ? null : cleaned;
};

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

/** Only an absolute http(s) URL becomes an image source; anything else (javascript:, data:, a path) is left out. */
const logoOf = (value: unknown): string | null => {
  const raw = text(value);
  if (!raw) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    // Not a URL: the mail goes without a logo rather than not at all.
    return null;
  }
};

export const expiresInWords = (seconds: number): string => {
  if (seconds < 120) return `${seconds} seconds`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} minutes`;
  return `${Math.floor(seconds / 3600)} hours`;
};

/** The OTP email of a platform's embeddedWalletConfig: sender, reply-to, subject, and the text and HTML bodies. */
export const composeOtpMail = (
  branding: OtpBranding,
  otp: { otpCode: string; sentAt: Date; expiresAt: Date },
): Pick<OtpMail, 'from' | 'replyTo' | 'subject' | 'text' | 'html'> => {
  const appName = text(branding.appName);
  const expiresIn = expiresInWords(Math.round((otp.expiresAt.getTime() - otp.sentAt.getTime()) / 1000));
  const product = appName ?? 'your wallet';
  const logo = logoOf(branding.logoUrl);
  const lines = [
    `Your sign-in code for ${product} is:`,
    '',
    otp.otpCode,
    '',
    `It expires in ${expiresIn}.`,
    'If you did not ask to sign in, ignore this email: nobody can sign in without the code.',
  ];
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif; color: #111;">',
    logo ? `<p><img src="${escapeHtml(logo)}" alt="${escapeHtml(appName ?? '')}" height="48"></p>` : '',
    `<p>Your sign-in code for ${escapeHtml(product)} is:</p>`,
    `<p style="font-size: 28px; font-weight: bold; letter-spacing: 4px;">${escapeHtml(otp.otpCode)}</p>`,
    `<p>It expires in ${expiresIn}.</p>`,
    '<p style="color: #555;">If you did not ask to sign in, ignore this email: nobody can sign in without the code.</p>',
    '</body></html>',
  ].join('');
  return {
    from: { name: text(branding.sendFromEmailSenderName) ?? DEFAULT_SENDER_NAME, address: text(branding.sendFromEmailAddress) },
    replyTo: text(branding.replyToEmailAddress),
    subject: `${appName ?? 'Your wallet'} sign-in code`,
    text: lines.join('\n'),
    html,
  };
};

/** The 503 message of a failed send: what happened, and who can do something about it. */
export const deliveryFailureMessage = (reason: DeliveryFailureReason, platformSender: string | null): string => {
  const later =
    'Ask for a new code in a moment; if it keeps failing, the deployment operator should check the accounts service log and its SMTP_* ' +
    'settings.';
  switch (reason) {
    case 'sender':
      return `The mail relay refused the deployment's envelope sender (MAIL_FROM). ${later}`;
    case 'recipient':
      return "The mail relay refused this credential's email address: check the customer's email.";
    case 'connection':
      return `The OTP email could not be sent: the mail relay could not be reached. ${later}`;
    case 'timeout':
      return `The OTP email could not be sent: the mail relay did not answer in time. ${later}`;
    case 'tls':
      return `The OTP email could not be sent: no TLS connection to the mail relay could be made. ${later}`;
    case 'auth':
      return `The OTP email could not be sent: the mail relay refused the deployment's credentials. ${later}`;
    case 'refused':
      // Relays check the From header after DATA: a platform's own sender is the usual cause.
      return platformSender
        ? `The mail relay refused the message. It is sent from embeddedWalletConfig.sendFromEmailAddress (${platformSender}): ` +
            "make sure this deployment's relay may send as that address, or remove it (PATCH /config) to send from the deployment's own."
        : `The OTP email could not be sent: the mail relay refused the message. ${later}`;
    case 'other':
      return `The OTP email could not be sent. ${later}`;
  }
};
