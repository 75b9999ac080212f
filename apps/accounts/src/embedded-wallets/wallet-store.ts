import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '@corridor/event-store';
import type { CredentialSummary, FailureWindow, Session } from './auth-rules';
import type { PendingRequest } from './signed-retry';

// SQL of the Embedded Wallet tables (migration 003), on the process's one pool.

export type CredentialRow = CredentialSummary & {
  platformId: string;
  accountId: string;
  nickname: string;
  identity: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
};
export type OtpRow = {
  credentialId: string;
  targetPublic: string;
  sealedTargetPrivate: string;
  otpDigest: string;
  otpSalt: string;
  expiresAt: Date;
  usedAt: Date | null;
};
export type SessionRow = Session & { platformId: string; accountId: string; createdAt: Date };
export type WalletPlatform = { platformId: string; environment: string; enabled: boolean; config: Record<string, unknown> };

const credentialOf = (row: Record<string, any>): CredentialRow => ({
  id: row.id,
  platformId: row.platform_id,
  accountId: row.account_id,
  type: row.type,
  nickname: row.nickname,
  credentialId: row.credential_id,
  identity: row.identity,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
const sessionOf = (row: Record<string, any>): SessionRow => ({
  id: row.id,
  platformId: row.platform_id,
  accountId: row.account_id,
  credentialId: row.credential_id,
  publicKey: row.public_key,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});
const windowOf = (row: Record<string, any>): FailureWindow => ({
  failures: row.failures,
  windowStart: row.window_start,
  lockedUntil: row.locked_until,
  locks: row.locks ?? 0,
});
const pendingOf = (row: Record<string, any>): PendingRequest => ({
  requestId: row.request_id,
  platformId: row.platform_id,
  accountId: row.account_id,
  operation: row.operation,
  targetId: row.target_id,
  bodyDigest: row.body_digest,
  payloadToSign: row.payload_to_sign,
  bound: row.bound,
  expiresAt: row.expires_at,
  usedAt: row.used_at,
});

export class WalletStore {
  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {}

  private t(table: string): string {
    return `${this.schema}.${table}`;
  }

  /** Work on one connection inside BEGIN/COMMIT (a connection whose ROLLBACK failed is destroyed, never given back to the pool). */
  private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /**
   * Holds the wallet's row until the transaction ends: every change to which credentials an account
   * has (a revoke, an email change of its EMAIL_OTP) takes it first, so two of them on one wallet
   * run one after the other and each decides on what the other left.
   */
  private async lockWallet(client: PoolClient, accountId: string): Promise<void> {
    await client.query(`SELECT 1 FROM ${this.t('wallet_keys')} WHERE account_id = $1 FOR UPDATE`, [accountId]);
  }

  async upsertPlatform(platform: WalletPlatform): Promise<{ wasEnabled: boolean }> {
    const { rows } = await this.pool.query(
      `WITH previous AS (SELECT enabled FROM ${this.t('wallet_platforms')} WHERE platform_id = $1)
       INSERT INTO ${this.t('wallet_platforms')} (platform_id, environment, enabled, config) VALUES ($1, $2, $3, $4)
       ON CONFLICT (platform_id) DO UPDATE SET enabled = EXCLUDED.enabled OR ${this.t('wallet_platforms')}.enabled,
         config = ${this.t('wallet_platforms')}.config || EXCLUDED.config,
         environment = CASE WHEN EXCLUDED.environment = '' THEN ${this.t('wallet_platforms')}.environment ELSE EXCLUDED.environment END
       RETURNING (SELECT enabled FROM previous) AS was_enabled`,
      [platform.platformId, platform.environment, platform.enabled, JSON.stringify(platform.config)],
    );
    return { wasEnabled: rows[0]?.was_enabled === true };
  }

  async platform(platformId: string): Promise<WalletPlatform | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('wallet_platforms')} WHERE platform_id = $1`, [platformId]);
    const row = rows[0];
    return row ? { platformId: row.platform_id, environment: row.environment, enabled: row.enabled, config: row.config } : null;
  }

  /**
   * Records the customer (an event without an email keeps the known one) and answers the email now known.
   * A customer already recorded with that email (the create's own record, then its CustomerCreated)
   * is not written again: no new row version, no commit to flush, one statement either way.
   */
  async upsertCustomer(customerId: string, platformId: string, email: string | null): Promise<string | null> {
    const table = this.t('wallet_customers');
    const { rows } = await this.pool.query<{ email: string | null }>(
      `WITH known AS (SELECT email FROM ${table} WHERE customer_id = $1),
       written AS (
         INSERT INTO ${table} (customer_id, platform_id, email)
         SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT 1 FROM known WHERE $3::text IS NULL OR email = $3::text)
         ON CONFLICT (customer_id) DO UPDATE SET email = COALESCE(EXCLUDED.email, ${table}.email)
         RETURNING email)
       SELECT email FROM written UNION ALL SELECT email FROM known WHERE NOT EXISTS (SELECT 1 FROM written)`,
      [customerId, platformId, email],
    );
    return rows[0]?.email ?? null;
  }

  async customer(customerId: string): Promise<{ customerId: string; platformId: string; email: string | null } | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('wallet_customers')} WHERE customer_id = $1`, [customerId]);
    return rows[0] ? { customerId: rows[0].customer_id, platformId: rows[0].platform_id, email: rows[0].email } : null;
  }

  /** The platform's customers with an email and no EMBEDDED_WALLET account in the read model yet. */
  async customersWithoutWallet(platformId: string): Promise<{ customerId: string; email: string }[]> {
    const { rows } = await this.pool.query(
      `SELECT c.customer_id, c.email FROM ${this.t('wallet_customers')} c
       WHERE c.platform_id = $1 AND c.email IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM ${this.t('internal_accounts')} a WHERE a.platform_id = c.platform_id
         AND a.customer_id = c.customer_id AND a.account_type = 'EMBEDDED_WALLET')
       ORDER BY c.customer_id`,
      [platformId],
    );
    return rows.map((row) => ({ customerId: row.customer_id, email: row.email }));
  }

  /** The wallet's key and first EMAIL_OTP credential, once: a redelivered event changes nothing. */
  async provisionWallet(input: {
    accountId: string;
    platformId: string;
    customerId: string;
    sealedMnemonic: string;
    credentialId: string;
    email: string;
    now: Date;
  }): Promise<void> {
    await this.transaction(async (client) => {
      const inserted = await client.query(
        `INSERT INTO ${this.t('wallet_keys')} (account_id, platform_id, customer_id, sealed_mnemonic, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id) DO NOTHING`,
        [input.accountId, input.platformId, input.customerId, input.sealedMnemonic, input.now],
      );
      if (inserted.rowCount === 1) {
        await client.query(
          `INSERT INTO ${this.t('auth_credentials')} (id, platform_id, account_id, type, nickname, credential_id, identity, created_at,
           updated_at)
           VALUES ($1, $2, $3, 'EMAIL_OTP', $4, NULL, NULL, $5, $5)`,
          [input.credentialId, input.platformId, input.accountId, input.email, input.now],
        );
      }
    });
  }

  async sealedMnemonic(accountId: string, platformId: string): Promise<string | null> {
    const { rows } = await this.pool.query(
      `SELECT sealed_mnemonic FROM ${this.t('wallet_keys')} WHERE account_id = $1 AND platform_id = $2`,
      [accountId, platformId],
    );
    return rows[0]?.sealed_mnemonic ?? null;
  }

  async walletOf(accountId: string, platformId: string): Promise<{ accountId: string; customerId: string } | null> {
    const { rows } = await this.pool.query(
      `SELECT account_id, customer_id FROM ${this.t('wallet_keys')} WHERE account_id = $1 AND platform_id = $2`,
      [accountId, platformId],
    );
    return rows[0] ? { accountId: rows[0].account_id, customerId: rows[0].customer_id } : null;
  }

  async walletOfCustomer(customerId: string, platformId: string): Promise<{ accountId: string; customerId: string } | null> {
    const { rows } = await this.pool.query(
      `SELECT account_id, customer_id FROM ${this.t('wallet_keys')} WHERE customer_id = $1 AND platform_id = $2`,
      [customerId, platformId],
    );
    return rows[0] ? { accountId: rows[0].account_id, customerId: rows[0].customer_id } : null;
  }

  /** The EMAIL_OTP credential follows the customer's email. */
  async renameEmailCredential(accountId: string, email: string, now: Date): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.t('auth_credentials')} SET nickname = $2, updated_at = $3 WHERE account_id = $1 AND type = 'EMAIL_OTP'
       AND revoked_at IS NULL AND nickname <> $2`,
      [accountId, email, now],
    );
  }

  /**
   * Whether an active EMAIL_OTP credential of the platform on another account has this address
   * (case ignored: the same inbox). Checked apart from the wallet's lock, so two wallets moving to
   * one address at the same instant can both pass; customers may share an email, so no unique
   * index can forbid it.
   */
  async emailOtpTakenElsewhere(
    platformId: string,
    email: string,
    exceptAccountId: string,
    client: Pick<Pool, 'query'> = this.pool,
  ): Promise<boolean> {
    const { rows } = await client.query(
      `SELECT 1 FROM ${this.t('auth_credentials')} WHERE platform_id = $1 AND type = 'EMAIL_OTP' AND revoked_at IS NULL
       AND lower(nickname) = lower($2) AND account_id <> $3 LIMIT 1`,
      [platformId, email, exceptAccountId],
    );
    return rows.length > 0;
  }

  /**
   * Gives the wallet's EMAIL_OTP credentials the new email, in one transaction under the wallet's
   * lock: `decide` judges the tied credentials as they are now and whether the address is taken,
   * `check` the number renamed; either refuses by throwing, and then nothing is renamed.
   */
  async renameTiedCredentials(
    input: { accountId: string; platformId: string; email: string; now: Date },
    decide: (tied: { credentialIds: string[]; emailTakenElsewhere: boolean }) => void,
    check: (expected: number, renamed: number) => void,
  ): Promise<void> {
    await this.transaction(async (client) => {
      await this.lockWallet(client, input.accountId);
      const { rows } = await client.query(
        `SELECT id FROM ${this.t('auth_credentials')} WHERE account_id = $1 AND type = 'EMAIL_OTP' AND revoked_at IS NULL`,
        [input.accountId],
      );
      const credentialIds = rows.map((row) => row.id as string);
      decide({
        credentialIds,
        emailTakenElsewhere: await this.emailOtpTakenElsewhere(input.platformId, input.email, input.accountId, client),
      });
      const renamed = await client.query(
        `UPDATE ${this.t('auth_credentials')} SET nickname = $2, updated_at = $3 WHERE id = ANY($1) AND revoked_at IS NULL`,
        [credentialIds, input.email, input.now],
      );
      check(credentialIds.length, renamed.rowCount ?? 0);
    });
  }

  async credentials(accountId: string, platformId: string): Promise<CredentialRow[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.t('auth_credentials')} WHERE account_id = $1 AND platform_id = $2 AND revoked_at IS NULL
       ORDER BY created_at, id`,
      [accountId, platformId],
    );
    return rows.map(credentialOf);
  }

  async credential(id: string, platformId: string): Promise<CredentialRow | null> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.t('auth_credentials')} WHERE id = $1 AND platform_id = $2 AND revoked_at IS NULL`,
      [id, platformId],
    );
    return rows[0] ? credentialOf(rows[0]) : null;
  }

  async insertCredential(row: CredentialRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('auth_credentials')} (id, platform_id, account_id, type, nickname, credential_id, identity, created_at,
       updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
      [
        row.id,
        row.platformId,
        row.accountId,
        row.type,
        row.nickname,
        row.credentialId ?? null,
        row.identity ? JSON.stringify(row.identity) : null,
        row.createdAt,
      ],
    );
  }

  async updateIdentity(id: string, identity: Record<string, unknown>, now: Date): Promise<void> {
    await this.pool.query(`UPDATE ${this.t('auth_credentials')} SET identity = $2, updated_at = $3 WHERE id = $1`, [
      id,
      JSON.stringify(identity),
      now,
    ]);
  }

  /**
   * Revokes the credential and ends its sessions, in one transaction under the wallet's lock:
   * `decide` sees the account's credentials as they are once any concurrent revoke has finished,
   * and refuses by throwing (nothing is then changed).
   */
  async revokeCredential(id: string, accountId: string, now: Date, decide: (current: CredentialRow[]) => void): Promise<void> {
    await this.transaction(async (client) => {
      await this.lockWallet(client, accountId);
      const { rows } = await client.query(
        `SELECT * FROM ${this.t('auth_credentials')} WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`,
        [accountId],
      );
      decide(rows.map(credentialOf));
      await client.query(`UPDATE ${this.t('auth_credentials')} SET revoked_at = $2, updated_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [
        id,
        now,
      ]);
      await client.query(`UPDATE ${this.t('auth_sessions')} SET revoked_at = $2 WHERE credential_id = $1 AND revoked_at IS NULL`, [
        id,
        now,
      ]);
    });
  }

  async saveOtp(row: OtpRow & { issuedAt: Date }): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('auth_otps')} (credential_id, target_public, sealed_target_private, otp_digest, otp_salt, issued_at,
       expires_at, used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
       ON CONFLICT (credential_id) DO UPDATE
       SET target_public = EXCLUDED.target_public, sealed_target_private = EXCLUDED.sealed_target_private,
         otp_digest = EXCLUDED.otp_digest, otp_salt = EXCLUDED.otp_salt, issued_at = EXCLUDED.issued_at, expires_at = EXCLUDED.expires_at,
         used_at = NULL`,
      [row.credentialId, row.targetPublic, row.sealedTargetPrivate, row.otpDigest, row.otpSalt, row.issuedAt, row.expiresAt],
    );
  }

  async otp(credentialId: string): Promise<OtpRow | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('auth_otps')} WHERE credential_id = $1`, [credentialId]);
    const row = rows[0];
    return row
      ? {
          credentialId: row.credential_id,
          targetPublic: row.target_public,
          sealedTargetPrivate: row.sealed_target_private,
          otpDigest: row.otp_digest,
          otpSalt: row.otp_salt,
          expiresAt: row.expires_at,
          usedAt: row.used_at,
        }
      : null;
  }

  /** The OTP can no longer be used (its guesses are spent): the customer asks for a new one. */
  async burnOtp(credentialId: string, now: Date): Promise<void> {
    await this.pool.query(`UPDATE ${this.t('auth_otps')} SET used_at = $2 WHERE credential_id = $1 AND used_at IS NULL`, [
      credentialId,
      now,
    ]);
  }

  /** Marks the OTP used; false when another request used it first. */
  async useOtp(credentialId: string, digest: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE ${this.t('auth_otps')} SET used_at = $3 WHERE credential_id = $1 AND otp_digest = $2 AND used_at IS NULL`,
      [credentialId, digest, now],
    );
    return result.rowCount === 1;
  }

  async insertSession(row: SessionRow): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('auth_sessions')} (id, platform_id, account_id, credential_id, public_key, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.id, row.platformId, row.accountId, row.credentialId, row.publicKey, row.createdAt, row.expiresAt],
    );
  }

  async sessions(accountId: string, platformId: string): Promise<SessionRow[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.t('auth_sessions')} WHERE account_id = $1 AND platform_id = $2 AND revoked_at IS NULL
       ORDER BY created_at DESC, id DESC`,
      [accountId, platformId],
    );
    return rows.map(sessionOf);
  }

  async session(id: string, platformId: string): Promise<SessionRow | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('auth_sessions')} WHERE id = $1 AND platform_id = $2`, [id, platformId]);
    return rows[0] ? sessionOf(rows[0]) : null;
  }

  async revokeSession(id: string, now: Date): Promise<void> {
    await this.pool.query(`UPDATE ${this.t('auth_sessions')} SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [id, now]);
  }

  async insertPending(row: PendingRequest, now: Date): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.t('wallet_pending_requests')} (request_id, platform_id, account_id, operation, target_id, body_digest,
       payload_to_sign, bound, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        row.requestId,
        row.platformId,
        row.accountId,
        row.operation,
        row.targetId,
        row.bodyDigest,
        row.payloadToSign,
        JSON.stringify(row.bound),
        now,
        row.expiresAt,
      ],
    );
  }

  async pending(requestId: string): Promise<PendingRequest | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('wallet_pending_requests')} WHERE request_id = $1`, [requestId]);
    return rows[0] ? pendingOf(rows[0]) : null;
  }

  /** Single use: true for the one retry that consumes the request, false for any later or concurrent one. */
  async consumePending(requestId: string, now: Date): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE ${this.t('wallet_pending_requests')} SET used_at = $2 WHERE request_id = $1 AND used_at IS NULL AND expires_at > $2`,
      [requestId, now],
    );
    return result.rowCount === 1;
  }

  /**
   * Unused again (the change it authorized was refused): true when it was used and is given back.
   * Without `operations`, any operation; with them, only those.
   */
  async releasePending(requestId: string, platformId: string, operations?: readonly string[]): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE ${this.t('wallet_pending_requests')} SET used_at = NULL WHERE request_id = $1 AND platform_id = $2 AND used_at IS NOT NULL
       AND ($3::text[] IS NULL OR operation = ANY($3))`,
      [requestId, platformId, operations ? [...operations] : null],
    );
    return result.rowCount === 1;
  }

  async attempts(key: string): Promise<FailureWindow | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${this.t('auth_attempts')} WHERE key = $1`, [key]);
    return rows[0] ? windowOf(rows[0]) : null;
  }

  /**
   * Changes a key's failure window under its row lock, so concurrent attempts change it one after
   * the other and none decides on a count another is about to raise. `change` may refuse by
   * throwing (nothing is then written). The row is made first when the key has none, so even the
   * first attempts of a key serialize on it.
   */
  async changeAttempts(key: string, change: (window: FailureWindow | null) => FailureWindow): Promise<FailureWindow> {
    return this.transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.t('auth_attempts')} (key, failures, window_start, locked_until, locks) VALUES ($1, 0, 'epoch', NULL, 0)
         ON CONFLICT (key) DO NOTHING`,
        [key],
      );
      const { rows } = await client.query(`SELECT * FROM ${this.t('auth_attempts')} WHERE key = $1 FOR UPDATE`, [key]);
      // A row made just now says failures 0 from the epoch: admitAttempt reads that as no window yet.
      const current = rows[0] ? windowOf(rows[0]) : null;
      const next = change(current);
      await client.query(
        `UPDATE ${this.t('auth_attempts')} SET failures = $2, window_start = $3, locked_until = $4, locks = $5 WHERE key = $1`,
        [key, next.failures, next.windowStart, next.lockedUntil, next.locks],
      );
      return next;
    });
  }

  async clearAttempts(key: string): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.t('auth_attempts')} WHERE key = $1`, [key]);
  }
}
