import type { PlatformEnvironment } from '@corridor/contracts';

// The port OTP emails leave through. The service decides the code, its expiry and the address; an
// adapter only delivers. The sandbox's adapter is the mailbox a developer or a test reads
// (sandbox-mailbox.ts); production has none until a real transport (SMTP) is added, and a challenge
// on a platform whose environment has no mailer answers 503 EMAIL_DELIVERY_UNAVAILABLE.

export type OtpMail = { platformId: string; accountId: string; to: string; subject: string; otpCode: string; sentAt: Date; expiresAt: Date };

export interface OtpMailer {
  /** Delivers one OTP email; throws when it could not (the challenge then fails, and the client asks again). */
  send(mail: OtpMail): Promise<void>;
}

/** The mailer of each platform environment; an environment without one cannot be sent OTPs. */
export type OtpMailers = Partial<Record<PlatformEnvironment, OtpMailer>>;
export const OTP_MAILERS = 'OTP_MAILERS';
