import { parseSmtpConfig, type SmtpConfig } from './mail-config';
import { type OidcIssuer, parseOidcIssuers } from './oidc';
import { parseWebAuthnConfig, type WebAuthnConfig } from './passkeys';
import { type BundleSigningKey, bundleSigningKeyOf } from './wallet-crypto';

// Configuration of the Embedded Wallet part of the accounts service, in the style of the webhooks
// service's key-encryption key (apps/webhooks/src/config.ts).

export type EmbeddedWalletConfig = {
  /** EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: AES-256-GCM key sealing wallet mnemonics and OTP target keys at rest. */
  keyEncryptionKey: Buffer;
  /** EMBEDDED_WALLET_SESSION_TTL_SECONDS: lifetime of a session signing key (reference default 15 minutes). */
  sessionTtlSeconds: number;
  /** EMBEDDED_WALLET_OIDC_ISSUERS: issuers whose ID tokens OAUTH credentials accept, with their JWKS. */
  oidcIssuers: OidcIssuer[];
  /** EMBEDDED_WALLET_WEBAUTHN_RP_IDS / _ORIGINS: the relying parties and origins passkeys are accepted for. */
  webAuthn: WebAuthnConfig;
  /** EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS: how often sandbox mail whose OTP expired is deleted (default 60). */
  mailboxSweepSeconds: number;
  /**
   * EMBEDDED_WALLET_AUTH_FAILURES_MAX: wrong OTPs, tokens, assertions or stamps within 15 minutes
   * before a credential's verify or a wallet's signed requests lock for 60 s (default 5). Tests that
   * fuzz the parsers raise it so the lock does not hide them.
   */
  authFailuresMax: number;
  /** SMTP_* and MAIL_FROM: the relay production platforms' OTP mail goes through; null, they get 503. */
  smtp: SmtpConfig | null;
  /**
   * EMBEDDED_WALLET_EXPORT_SIGNING_KEY: the P-256 key that signs production bundles (exports and OTP
   * targets) as the reference's enclave quorum key; null, their dataSignature and enclaveQuorumPublic are "".
   */
  exportSigningKey: BundleSigningKey | null;
};

// A fixed key for development and tests only: anyone can read it here, so production refuses it.
const DEV_KEY_ENCRYPTION_KEY = 'ZGV2LW9ubHktd2FsbGV0LWtleS1lbmNyeXB0aW9uLWs=';
export const PUBLIC_WALLET_KEY_ENCRYPTION_KEYS: readonly string[] = [DEV_KEY_ENCRYPTION_KEY];
const GENERATE = 'generate one with `openssl rand -base64 32` and keep it secret';

/**
 * Production refuses a public key by its bytes, not its spelling: base64 has many spellings of one
 * key (without padding, URL-safe letters, line breaks), and every one of them decrypts the same.
 */
const isPublicKey = (key: Buffer): boolean => PUBLIC_WALLET_KEY_ENCRYPTION_KEYS.some((known) => Buffer.from(known, 'base64').equals(key));

export const parseWalletKeyEncryptionKey = (env: NodeJS.ProcessEnv): Buffer => {
  const configured = env['EMBEDDED_WALLET_KEY_ENCRYPTION_KEY'];
  const production = env['NODE_ENV'] === 'production';
  if (!configured) {
    if (production) throw new Error(`EMBEDDED_WALLET_KEY_ENCRYPTION_KEY is required in production: 32 random bytes, base64; ${GENERATE}.`);
    return Buffer.from(DEV_KEY_ENCRYPTION_KEY, 'base64');
  }
  const key = Buffer.from(configured, 'base64');
  if (production && isPublicKey(key))
    throw new Error(`EMBEDDED_WALLET_KEY_ENCRYPTION_KEY is a publicly known default; in production ${GENERATE}.`);
  if (key.length !== 32)
    throw new Error(`EMBEDDED_WALLET_KEY_ENCRYPTION_KEY must be 32 bytes in base64; it decodes to ${key.length} bytes (${GENERATE}).`);
  return key;
};

/** A whole number ≥ 1 from the environment, or the fallback when unset. */
const wholeNumber = (env: NodeJS.ProcessEnv, name: string, fallback: number): number => {
  const raw = env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}".`);
  return value;
};

const GENERATE_SIGNING_KEY =
  'generate one with `node -e "const ' +
  "{d}=require('crypto').generateKeyPairSync('ec',{namedCurve:'P-256'}).privateKey.export({format:'jwk'});" +
  "console.log(Buffer.from(d,'base64url').toString('hex'))\"`";

export const parseExportSigningKey = (env: NodeJS.ProcessEnv): BundleSigningKey | null => {
  const configured = env['EMBEDDED_WALLET_EXPORT_SIGNING_KEY']?.trim();
  if (!configured) return null;
  try {
    return bundleSigningKeyOf(configured);
  } catch (error) {
    throw new Error(`EMBEDDED_WALLET_EXPORT_SIGNING_KEY is ${(error as Error).message}; ${GENERATE_SIGNING_KEY}.`);
  }
};

export const parseEmbeddedWalletConfig = (env: NodeJS.ProcessEnv): EmbeddedWalletConfig => ({
  keyEncryptionKey: parseWalletKeyEncryptionKey(env),
  sessionTtlSeconds: wholeNumber(env, 'EMBEDDED_WALLET_SESSION_TTL_SECONDS', 900),
  oidcIssuers: parseOidcIssuers(env['EMBEDDED_WALLET_OIDC_ISSUERS']),
  webAuthn: parseWebAuthnConfig(env),
  mailboxSweepSeconds: wholeNumber(env, 'EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS', 60),
  authFailuresMax: wholeNumber(env, 'EMBEDDED_WALLET_AUTH_FAILURES_MAX', 5),
  smtp: parseSmtpConfig(env),
  exportSigningKey: parseExportSigningKey(env),
});
