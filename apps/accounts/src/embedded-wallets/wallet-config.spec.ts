// The Embedded Wallet configuration read at bootstrap: the session lifetime's default and bounds,
// and the key-encryption key that production must supply itself.
import { randomBytes } from 'node:crypto';
import { parseEmbeddedWalletConfig, parseWalletKeyEncryptionKey, PUBLIC_WALLET_KEY_ENCRYPTION_KEYS } from './wallet-config';

describe('EMBEDDED_WALLET_SESSION_TTL_SECONDS', () => {
  it('given nothing, then sessions last 900 s (the reference’s 15 minutes)', () => {
    expect(parseEmbeddedWalletConfig({}).sessionTtlSeconds).toBe(900);
    expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: '' }).sessionTtlSeconds).toBe(900);
  });

  it('given a whole number of seconds, then that lifetime', () => expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: '20' }).sessionTtlSeconds).toBe(20));

  it.each(['0', '-5', '1.5', 'soon'])('given %s, then it refuses to start', (value) => {
    expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: value })).toThrow(/EMBEDDED_WALLET_SESSION_TTL_SECONDS must be a whole number/);
  });
});

describe('EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS', () => {
  it('given nothing, then sandbox mail is purged every 60 s', () => expect(parseEmbeddedWalletConfig({}).mailboxSweepSeconds).toBe(60));
  it('given 0, then it refuses to start', () => expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS: '0' })).toThrow(/whole number/));
});

describe('EMBEDDED_WALLET_AUTH_FAILURES_MAX', () => {
  it('given nothing, then five failures lock', () => expect(parseEmbeddedWalletConfig({}).authFailuresMax).toBe(5));
  it('given a number, then that many', () => expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_AUTH_FAILURES_MAX: '1000' }).authFailuresMax).toBe(1000));
  it('given 0, then it refuses to start', () => expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_AUTH_FAILURES_MAX: '0' })).toThrow(/whole number/));
});

describe('EMBEDDED_WALLET_KEY_ENCRYPTION_KEY', () => {
  it('given nothing outside production, then the development key', () => expect(parseWalletKeyEncryptionKey({ NODE_ENV: 'development' })).toHaveLength(32));

  it('given nothing in production, then it refuses to start and says how to generate one', () => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production' })).toThrow(/required in production.*openssl rand -base64 32/);
  });

  it.each(PUBLIC_WALLET_KEY_ENCRYPTION_KEYS)('given the public default %s in production, then it refuses to start', (key) => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: key })).toThrow(/publicly known default.*openssl rand -base64 32/);
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: ` ${key}\n` })).toThrow(/publicly known default/);
  });

  it.each([
    ['without padding', (key: string) => key.replace(/=+$/, '')],
    ['in groups of eight', (key: string) => key.match(/.{1,8}/g)?.join(' ') ?? key],
    ['with a line break inside', (key: string) => `${key.slice(0, 20)}\n${key.slice(20)}`],
  ])('given the public default written %s in production, then it refuses to start (the same bytes)', (_name, respell) => {
    for (const key of PUBLIC_WALLET_KEY_ENCRYPTION_KEYS) {
      const variant = respell(key);
      expect(Buffer.from(variant, 'base64')).toEqual(Buffer.from(key, 'base64'));
      expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: variant })).toThrow(
        /publicly known default/,
      );
    }
  });

  it('given a generated key in production, then that key', () => {
    const key = randomBytes(32).toString('base64');
    expect(parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: key })).toEqual(Buffer.from(key, 'base64'));
  });

  it.each([16, 31, 33])('given a key of %i bytes, then it refuses to start', (length) => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: randomBytes(length).toString('base64') })).toThrow(/must be 32 bytes/);
  });

  it('given the deploy placeholder, then it refuses to start', () => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: 'replace-with-openssl-rand-base64-32' })).toThrow(/must be 32 bytes/);
  });
});
