import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Client secrets are shown once and stored only as a salted scrypt hash. The gateway caches a
// successful verification, so the deliberate cost of scrypt is paid once per credential, not per request.
const SCRYPT: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH_BYTES = 32;

const derive = (secret: string, salt: Buffer): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(secret, salt, KEY_LENGTH_BYTES, SCRYPT, (error, key) => (error ? reject(error) : resolve(key))));

export const newClientId = (): string => randomBytes(16).toString('hex');
export const newClientSecret = (): string => randomBytes(24).toString('hex');

export const hashSecret = async (secret: string): Promise<string> => {
  const salt = randomBytes(16);
  const key = await derive(secret, salt);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
};

export const verifySecret = async (secret: string, stored: string): Promise<boolean> => {
  const [scheme, , , , saltText, keyText] = stored.split('$');
  if (scheme !== 'scrypt' || !saltText || !keyText) return false;
  const expected = Buffer.from(keyText, 'base64');
  const actual = await derive(secret, Buffer.from(saltText, 'base64'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
};
