import type { Pool } from 'pg';
import type { ConsentReference, WalletConsent } from './wallet-consent';

// The wallet_consents table (migration 007) on the process's one pool: written where a wallet's
// stamp is verified (embedded-wallets), read by the ledger controller for the deciders to judge.

/**
 * How long a transaction's consent waits for its hold. A quote's execution and a platform's transfer
 * hold at once (a crashed one resumes within seconds); an agent's transfer holds when the platform
 * approves the action, which may take hours. Past a day the action fails and the owner signs again.
 */
export const TRANSACTION_CONSENT_TTL_MS = 24 * 60 * 60_000;
/** Expired transaction consents of a wallet are deleted this long after their expiry, when the wallet next consents. */
const EXPIRED_CONSENT_KEPT_MS = 24 * 60 * 60_000;

const consentOf = (row: Record<string, any>): WalletConsent => ({
  consentId: row.consent_id,
  platformId: row.platform_id,
  accountId: row.account_id,
  kind: row.kind,
  reference: row.reference,
  amount: row.amount === null ? null : BigInt(row.amount),
  currency: row.currency,
  expiresAt: row.expires_at,
  endedAt: row.ended_at,
});

export class WalletConsents {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  private get table(): string {
    return `${this.schema}.wallet_consents`;
  }

  async find(platformId: string, accountId: string, reference: ConsentReference): Promise<WalletConsent | null> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.table} WHERE account_id = $1 AND kind = $2 AND reference = $3 AND platform_id = $4`,
      [accountId, reference.kind, reference.reference, platformId],
    );
    return rows[0] ? consentOf(rows[0]) : null;
  }

  /** The owner's consent to one transaction's hold; a second stamp for the same transaction renews it. */
  async grantTransaction(input: {
    platformId: string;
    accountId: string;
    transactionId: string;
    amount: bigint;
    currency: string;
    consentId: string;
    now: Date;
  }): Promise<void> {
    const expiresAt = new Date(input.now.getTime() + TRANSACTION_CONSENT_TTL_MS);
    await this.pool.query(
      `WITH purged AS (DELETE FROM ${this.table} WHERE account_id = $1 AND kind = 'TRANSACTION' AND reference <> $2 AND expires_at < $8)
       INSERT INTO ${this.table} (account_id, kind, reference, platform_id, consent_id, amount, currency, granted_at, expires_at)
       VALUES ($1, 'TRANSACTION', $2, $3, $4, $5, $6, $7, $9)
       ON CONFLICT (account_id, kind, reference) DO UPDATE SET consent_id = EXCLUDED.consent_id, amount = EXCLUDED.amount,
         currency = EXCLUDED.currency,
         granted_at = EXCLUDED.granted_at, expires_at = EXCLUDED.expires_at, ended_at = NULL
       WHERE ${this.table}.platform_id = EXCLUDED.platform_id`,
      [
        input.accountId,
        input.transactionId,
        input.platformId,
        input.consentId,
        input.amount.toString(),
        input.currency,
        input.now,
        new Date(input.now.getTime() - EXPIRED_CONSENT_KEPT_MS),
        expiresAt,
      ],
    );
  }

  /**
   * The owner's consent to fund a card. Granting again renews it (granted_at moves on), so an end
   * decided by a card change that happened before this grant (endCard's `at`) does not undo it.
   */
  async grantCard(input: { platformId: string; accountId: string; cardId: string; consentId: string; now: Date }): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (account_id, kind, reference, platform_id, consent_id, granted_at) VALUES ($1, 'CARD', $2, $3, $4, $5)
       ON CONFLICT (account_id, kind, reference)
       DO UPDATE SET consent_id = EXCLUDED.consent_id, granted_at = EXCLUDED.granted_at, ended_at = NULL
       WHERE ${this.table}.platform_id = EXCLUDED.platform_id`,
      [input.accountId, input.cardId, input.platformId, input.consentId, input.now],
    );
  }

  /**
   * Ends the card consents of every wallet the card no longer lists after a change made at `at`
   * (closed, rejected, sources replaced); consents granted after `at` belong to a later binding and
   * stay. Answers how many ended; ending again is a no-op.
   */
  async endCard(input: { platformId: string; cardId: string; keepAccountIds: readonly string[]; at: Date }): Promise<number> {
    const result = await this.pool.query(
      `UPDATE ${this.table} SET ended_at = $4
       WHERE kind = 'CARD' AND reference = $2 AND platform_id = $1 AND ended_at IS NULL AND granted_at <= $4
         AND NOT (account_id = ANY($3::text[]))`,
      [input.platformId, input.cardId, [...input.keepAccountIds], input.at],
    );
    return result.rowCount ?? 0;
  }
}
