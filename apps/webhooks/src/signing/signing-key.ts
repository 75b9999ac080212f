import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';

// X-Grid-Signature of the reference: {"v":"1","s":"<base64 DER ECDSA P-256 SHA-256 over the raw body>"}.
// Private keys rest encrypted with AES-256-GCM under the service's key-encryption key.

export const SIGNATURE_HEADER = 'X-Grid-Signature';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export type KeyPairPem = { publicKeyPem: string; privateKeyPem: string };

export const generateSigningKeyPair = (): KeyPairPem => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
};

export const encryptPrivateKey = (privateKeyPem: string, keyEncryptionKey: Buffer): string => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyEncryptionKey, iv);
  const ciphertext = Buffer.concat([cipher.update(privateKeyPem, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
};

/** Throws if the ciphertext was altered or the key-encryption key is not the one that sealed it. */
export const decryptPrivateKey = (sealed: string, keyEncryptionKey: Buffer): KeyObject => {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', keyEncryptionKey, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const pem = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  return createPrivateKey(pem);
};

export const signatureHeader = (body: string | Buffer, privateKey: KeyObject): string =>
  JSON.stringify({ v: '1', s: sign('sha256', typeof body === 'string' ? Buffer.from(body) : body, privateKey).toString('base64') });

/** What a receiver does (the README shows the same few lines). */
export const verifySignatureHeader = (body: string | Buffer, header: string, publicKeyPem: string): boolean => {
  let parsed: { v?: unknown; s?: unknown };
  try {
    parsed = JSON.parse(header) as { v?: unknown; s?: unknown };
  } catch {
    // A header that is not JSON is a signature that does not verify.
    return false;
  }
  if (parsed.v !== '1' || typeof parsed.s !== 'string') return false;
  return verify(
    'sha256',
    typeof body === 'string' ? Buffer.from(body) : body,
    createPublicKey(publicKeyPem),
    Buffer.from(parsed.s, 'base64'),
  );
};
