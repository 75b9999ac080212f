import type { Pool } from 'pg';
import type { OtpMail, OtpMailer } from './otp-mail';

/** What GET /sandbox/auth/mailbox shows of one mail. */
export type SandboxMail = { to: string; subject: string; otpCode: string; sentAt: Date };

/**
 * The sandbox's OtpMailer: mail is kept in wallet_sandbox_mailbox for the developer (or a test)
 * to read instead of an inbox. The rows hold OTPs in plaintext, so a mail is shown only while its
 * OTP is valid and is deleted by the purge job once it has expired.
 */
export class SandboxMailbox implements OtpMailer {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  async send(mail: OtpMail): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.schema}.wallet_sandbox_mailbox (platform_id, account_id, to_address, subject, otp_code, sent_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [mail.platformId, mail.accountId, mail.to, mail.subject, mail.otpCode, mail.sentAt, mail.expiresAt],
    );
  }

  /** The account's latest mail whose OTP has not expired, newest first (at most `limit`). */
  async inbox(accountId: string, platformId: string, now: Date, limit = 20): Promise<SandboxMail[]> {
    const { rows } = await this.pool.query(
      `SELECT to_address, subject, otp_code, sent_at FROM ${this.schema}.wallet_sandbox_mailbox WHERE account_id = $1 AND platform_id = $2
       AND expires_at > $3 ORDER BY id DESC LIMIT $4`,
      [accountId, platformId, now, limit],
    );
    return rows.map((row) => ({ to: row.to_address, subject: row.subject, otpCode: row.otp_code, sentAt: row.sent_at }));
  }

  /** Deletes up to `limit` mails whose OTP expired at or before now; returns how many. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    const result = await this.pool.query(
      `DELETE FROM ${this.schema}.wallet_sandbox_mailbox WHERE id IN (SELECT id FROM ${this.schema}.wallet_sandbox_mailbox
       WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [now, limit],
    );
    return result.rowCount ?? 0;
  }
}
