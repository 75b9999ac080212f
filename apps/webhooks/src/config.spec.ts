import { randomBytes } from 'node:crypto';
import { parseKeyEncryptionKey, PUBLIC_KEY_ENCRYPTION_KEYS } from './config';

describe('WEBHOOK_KEY_ENCRYPTION_KEY', () => {
  it('falls back to the dev key outside production', () => {
    expect(parseKeyEncryptionKey({ NODE_ENV: 'development' })).toHaveLength(32);
  });

  it('is required in production, saying how to generate one', () => {
    expect(() => parseKeyEncryptionKey({ NODE_ENV: 'production' })).toThrow(/required in production.*openssl rand -base64 32/);
  });

  it.each(PUBLIC_KEY_ENCRYPTION_KEYS)('refuses the public default %s in production', (key) => {
    expect(() => parseKeyEncryptionKey({ NODE_ENV: 'production', WEBHOOK_KEY_ENCRYPTION_KEY: key })).toThrow(
      /publicly known default.*openssl rand -base64 32/,
    );
  });

  it('accepts the public compose default outside production (a local compose run)', () => {
    expect(parseKeyEncryptionKey({ WEBHOOK_KEY_ENCRYPTION_KEY: 'bG9jYWwtY29tcG9zZS1vbmx5LWNoYW5nZS1tZS0wMDA=' })).toHaveLength(32);
  });

  it('accepts a generated key in production', () => {
    const key = randomBytes(32).toString('base64');
    expect(parseKeyEncryptionKey({ NODE_ENV: 'production', WEBHOOK_KEY_ENCRYPTION_KEY: key })).toEqual(Buffer.from(key, 'base64'));
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => parseKeyEncryptionKey({ NODE_ENV: 'production', WEBHOOK_KEY_ENCRYPTION_KEY: randomBytes(16).toString('base64') })).toThrow(
      /32 bytes/,
    );
  });
});
