import { inTransaction } from '@corridor/event-store';
import type { KeyObject } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { newId, type WebhookSigningKeyWire } from '@corridor/contracts';
import { decryptPrivateKey, encryptPrivateKey, generateSigningKeyPair } from './signing-key';

type KeyRow = { id: string; public_key_pem: string; private_key_encrypted: string; created_at: Date };

// Decrypted keys are cached briefly: signing is on every delivery, and a rotation done by another
// replica is picked up within this time (the retired key stays valid for the receiver meanwhile).
const CACHE_TTL_MS = 30_000;

/** One P-256 key pair per platform: created when the platform appears, or on first need. */
export class SigningKeys {
  private readonly cache = new Map<string, { key: KeyObject; loadedAtMs: number }>();

  constructor(
    private readonly pool: Pool,
    private readonly keyEncryptionKey: Buffer,
  ) {}

  /** Creates the platform's key unless it has an ACTIVE one; safe to run concurrently. */
  async ensure(platformId: string, now: Date, client: Pool | PoolClient = this.pool): Promise<void> {
    const existing = await client.query(`SELECT 1 FROM webhooks.signing_keys WHERE platform_id = $1 AND status = 'ACTIVE'`, [platformId]);
    if ((existing.rowCount ?? 0) > 0) return;
    await this.insert(client, platformId, now);
  }

  async active(platformId: string, now: Date): Promise<KeyRow> {
    const read = () =>
      this.pool.query<KeyRow>(`SELECT * FROM webhooks.signing_keys WHERE platform_id = $1 AND status = 'ACTIVE'`, [platformId]);
    let row = (await read()).rows[0];
    if (!row) {
      await this.insert(this.pool, platformId, now);
      row = (await read()).rows[0];
    }
    if (!row) throw new Error(`No signing key for ${platformId} after creating one.`);
    return row;
  }

  async publicKey(platformId: string, now: Date): Promise<WebhookSigningKeyWire> {
    const row = await this.active(platformId, now);
    return { publicKey: row.public_key_pem, algorithm: 'ECDSA_P256_SHA256', createdAt: row.created_at.toISOString() };
  }

  async privateKey(platformId: string, now: Date): Promise<KeyObject> {
    const cached = this.cache.get(platformId);
    if (cached && Date.now() - cached.loadedAtMs < CACHE_TTL_MS) return cached.key;
    const key = decryptPrivateKey((await this.active(platformId, now)).private_key_encrypted, this.keyEncryptionKey);
    this.cache.set(platformId, { key, loadedAtMs: Date.now() });
    return key;
  }

  /** Retires the ACTIVE key (kept, never deleted) and makes a new one, in one transaction. */
  async rotate(platformId: string, now: Date): Promise<WebhookSigningKeyWire> {
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE webhooks.signing_keys SET status = 'RETIRED', retired_at = $2 WHERE platform_id = $1 AND status = 'ACTIVE'`,
        [platformId, now],
      );
      await this.insert(client, platformId, now);
    });
    this.cache.delete(platformId);
    return this.publicKey(platformId, now);
  }

  private async insert(client: Pool | PoolClient, platformId: string, now: Date): Promise<void> {
    const pair = generateSigningKeyPair();
    // The partial unique index allows one ACTIVE key; a concurrent creator's key wins and ours is dropped.
    await client.query(
      `INSERT INTO webhooks.signing_keys (id, platform_id, public_key_pem, private_key_encrypted, status, created_at)
       VALUES ($1, $2, $3, $4, 'ACTIVE', $5) ON CONFLICT (platform_id) WHERE status = 'ACTIVE' DO NOTHING`,
      [newId('SigningKey'), platformId, pair.publicKeyPem, encryptPrivateKey(pair.privateKeyPem, this.keyEncryptionKey), now],
    );
  }
}
