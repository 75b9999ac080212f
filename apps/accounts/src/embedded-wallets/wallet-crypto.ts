import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha256';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import bs58check from 'bs58check';

// The byte formats of reference section (k), built only from maintained libraries: HPKE from
// @hpke/core (DHKEM P-256 / HKDF-SHA256 / AES-256-GCM), P-256 from @noble/curves, base58check
// from bs58check, BIP-39 from @scure/bip39. Every HPKE seal here uses the Turnkey convention the
// reference documents for the session key: info "turnkey_hpke", aad = enc ‖ recipient public key
// (both uncompressed, 65 bytes).

const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode('turnkey_hpke');
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts.map((part) => Buffer.from(part))));

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, 'hex'));

/** A fresh P-256 key pair: private key as 32-byte hex, public key as uncompressed SEC1 hex (04…). */
export const generateP256KeyPair = (): { privateKeyHex: string; publicKeyHex: string } => {
  const privateKey = p256.utils.randomPrivateKey();
  return { privateKeyHex: toHex(privateKey), publicKeyHex: toHex(p256.getPublicKey(privateKey, false)) };
};

/** Compressed SEC1 hex (33 bytes, 66 hex) of any P-256 public key encoding; throws when it is not a point. */
export const compressedPublicKey = (publicKeyHex: string): string => toHex(p256.ProjectivePoint.fromHex(publicKeyHex).toRawBytes(true));
export const uncompressedPublicKey = (publicKeyHex: string): Uint8Array => p256.ProjectivePoint.fromHex(publicKeyHex).toRawBytes(false);

export type HpkeSealed = { enc: Uint8Array; ciphertext: Uint8Array };

export const hpkeSeal = async (recipientPublicKeyHex: string, plaintext: Uint8Array): Promise<HpkeSealed> => {
  const recipient = uncompressedPublicKey(recipientPublicKeyHex);
  const recipientPublicKey = await suite.kem.importKey('raw', recipient, true);
  const sender = await suite.createSenderContext({ recipientPublicKey, info: INFO });
  const enc = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(plaintext, concat(enc, recipient)));
  return { enc, ciphertext };
};

/** Throws when the ciphertext was not sealed to this key (or was altered). */
export const hpkeOpen = async (recipientPrivateKeyHex: string, enc: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array> => {
  const privateKey = fromHex(recipientPrivateKeyHex);
  const recipient = p256.getPublicKey(privateKey, false);
  const recipientKey = await suite.kem.importKey('raw', privateKey, false);
  const encUncompressed = uncompressedPublicKey(toHex(enc));
  const context = await suite.createRecipientContext({ recipientKey, enc: encUncompressed, info: INFO });
  return new Uint8Array(await context.open(ciphertext, concat(encUncompressed, recipient)));
};

/** encryptedSessionSigningKey: base58check(compressed enc (33 B) ‖ AES-256-GCM ciphertext+tag) of the raw 32-byte key. */
export const sealSessionSigningKey = async (clientPublicKeyHex: string, sessionPrivateKeyHex: string): Promise<string> => {
  const { enc, ciphertext } = await hpkeSeal(clientPublicKeyHex, fromHex(sessionPrivateKeyHex));
  return bs58check.encode(concat(p256.ProjectivePoint.fromHex(enc).toRawBytes(true), ciphertext));
};

/**
 * The key that stands in for the reference's enclave quorum key: it signs the bundles of production
 * platforms, and clients pin its public key (uncompressed SEC1 hex, as enclaveQuorumPublic shows it).
 */
export type BundleSigningKey = { privateKeyHex: string; publicKeyHex: string };

/** The signing key of a 32-byte P-256 private key in hex; throws when it is not a valid scalar. */
export const bundleSigningKeyOf = (privateKeyHex: string): BundleSigningKey => {
  if (!/^[0-9a-fA-F]{64}$/.test(privateKeyHex) || !p256.utils.isValidPrivateKey(fromHex(privateKeyHex))) {
    throw new Error('not a P-256 private key: 32 bytes in hex (64 hex digits), between 1 and the curve order');
  }
  return { privateKeyHex: privateKeyHex.toLowerCase(), publicKeyHex: toHex(p256.getPublicKey(fromHex(privateKeyHex), false)) };
};

/**
 * The bundle format the reference uses for OTP targets and exports: {"version","data"(hex JSON),
 * "dataSignature","enclaveQuorumPublic"}. dataSignature is ECDSA-P256-SHA256 over the bytes `data`
 * hex-decodes to, DER in hex, as Turnkey's clients verify it; without a signer (sandbox) both are "".
 */
const bundle = (data: Record<string, unknown>, signer: BundleSigningKey | null): string => {
  const dataBytes = utf8(JSON.stringify(data));
  const dataSignature = signer ? p256.sign(sha256(dataBytes), fromHex(signer.privateKeyHex)).toDERHex() : '';
  return JSON.stringify({ version: 'v1.0.0', data: toHex(dataBytes), dataSignature, enclaveQuorumPublic: signer?.publicKeyHex ?? '' });
};

/** otpEncryptionTargetBundle: names the public key the client seals {otp_code, public_key} to. */
export const otpEncryptionTargetBundle = (
  targetPublicKeyHex: string,
  organizationId: string,
  userId: string,
  signer: BundleSigningKey | null,
): string => bundle({ targetPublic: targetPublicKeyHex, organizationId, userId }, signer);

export type OtpBundlePlaintext = { otpCode: string; publicKey: string };

/** Opens encryptedOtpBundle ({"encappedPublic","ciphertext"} hex); null when it is not one, cannot be opened, or lacks the fields. */
export const openOtpBundle = async (encryptedOtpBundle: string, targetPrivateKeyHex: string): Promise<OtpBundlePlaintext | null> => {
  try {
    const parsed = JSON.parse(encryptedOtpBundle) as { encappedPublic?: unknown; ciphertext?: unknown };
    if (typeof parsed.encappedPublic !== 'string' || typeof parsed.ciphertext !== 'string') return null;
    if (!/^[0-9a-fA-F]+$/.test(parsed.encappedPublic) || !/^[0-9a-fA-F]+$/.test(parsed.ciphertext)) return null;
    const plaintext = await hpkeOpen(targetPrivateKeyHex, fromHex(parsed.encappedPublic), fromHex(parsed.ciphertext));
    const body = JSON.parse(new TextDecoder().decode(plaintext)) as { otp_code?: unknown; public_key?: unknown };
    if (typeof body.otp_code !== 'string' || typeof body.public_key !== 'string') return null;
    compressedPublicKey(body.public_key); // throws when public_key is not a P-256 point
    return { otpCode: body.otp_code, publicKey: body.public_key };
  } catch {
    // Anything that does not open (bad JSON, wrong key, altered bytes, not a point) is simply not a valid bundle.
    return null;
  }
};

/**
 * encryptedWalletCredentials of an export: the mnemonic sealed to
 * clientPublicKey, data = hex JSON {encappedPublic, ciphertext, organizationId}.
 */
export const exportBundle = async (
  clientPublicKeyHex: string,
  mnemonic: string,
  organizationId: string,
  signer: BundleSigningKey | null,
): Promise<string> => {
  const { enc, ciphertext } = await hpkeSeal(clientPublicKeyHex, utf8(mnemonic));
  return bundle({ encappedPublic: toHex(enc), ciphertext: toHex(ciphertext), organizationId }, signer);
};

export type Stamp = { publicKey: string; scheme: string; signature: string };

/** Grid-Wallet-Signature: base64url (no padding) of {"publicKey","scheme","signature"}; null when it is not one. */
export const parseStamp = (header: string): Stamp | null => {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(header)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Partial<Record<keyof Stamp, unknown>>;
    const { publicKey, scheme, signature } = parsed;
    if (typeof publicKey !== 'string' || typeof scheme !== 'string' || typeof signature !== 'string') return null;
    if (scheme !== 'SIGNATURE_SCHEME_TK_API_P256') return null;
    if (!/^0[23][0-9a-fA-F]{64}$/.test(publicKey) || !/^[0-9a-fA-F]+$/.test(signature)) return null;
    return { publicKey: publicKey.toLowerCase(), scheme, signature };
  } catch {
    // Not base64url JSON: a malformed stamp, which the caller reports as such.
    return null;
  }
};

/** ECDSA P-256 over SHA-256 of the exact payload bytes, DER signature (high S accepted, as node:crypto signs). */
export const verifyStamp = (stamp: Stamp, payload: string): boolean => {
  try {
    return p256.verify(fromHex(stamp.signature), sha256(utf8(payload)), fromHex(stamp.publicKey), { format: 'der', lowS: false });
  } catch {
    // A DER that does not parse or a key that is not a point verifies nothing.
    return false;
  }
};

export const newMnemonic = (): string => generateMnemonic(wordlist, 128);

/**
 * The HMAC key of OTP digests: HKDF-SHA256 of the key-encryption key with its own label, so the
 * key that seals secrets at rest is never used for a second purpose.
 */
export const otpDigestKey = (keyEncryptionKey: Buffer): Buffer =>
  Buffer.from(hkdfSync('sha256', keyEncryptionKey, Buffer.alloc(0), 'corridor/embedded-wallet/otp-digest/v1', 32));

/**
 * HMAC-SHA256 of an OTP code under the digest key, with the row's salt: the code is never stored,
 * and a copy of the database alone cannot test the few million codes of 4 to 8 digits against it,
 * as it could a plain salted hash.
 */
export const otpDigest = (otpCode: string, salt: string, digestKey: Buffer): string =>
  createHmac('sha256', digestKey).update(`${salt}:${otpCode}`).digest('hex');
export const randomSalt = (): string => randomBytes(16).toString('hex');

/** Two hex digests compared in constant time, so the time of a refusal says nothing about how much of the digest matched. */
export const sameDigest = (candidateHex: string, storedHex: string): boolean => {
  const candidate = Buffer.from(candidateHex, 'hex');
  const stored = Buffer.from(storedHex, 'hex');
  // Buffer.from stops at the first character that is not hex, so a partial decode is a mismatch too.
  if (
    candidate.length === 0 ||
    candidate.length !== stored.length ||
    candidate.length * 2 !== candidateHex.length ||
    stored.length * 2 !== storedHex.length
  )
    return false;
  return timingSafeEqual(candidate, stored);
};

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM under the key-encryption key, as the webhooks service keeps its signing keys: base64(iv ‖ tag ‖ ciphertext). */
export const sealAtRest = (plaintext: string, keyEncryptionKey: Buffer): string => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyEncryptionKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
};

/** Throws when the sealed value was altered or another key-encryption key sealed it. */
export const openAtRest = (sealed: string, keyEncryptionKey: Buffer): string => {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyEncryptionKey, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
};

/** sha256 hex of a canonical JSON (keys sorted), what a signed retry binds its body by. */
export const bodyDigest = (body: unknown): string => createHash('sha256').update(canonicalJson(body)).digest('hex');
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
};
