// The Embedded Wallet configuration read at bootstrap: the session lifetime's default and bounds,
// and the key-encryption key that production must supply itself.
import { randomBytes } from 'node:crypto';
import { parseEmbeddedWalletConfig, parseWalletKeyEncryptionKey, PUBLIC_WALLET_KEY_ENCRYPTION_KEYS } from './wallet-config';

describe('EMBEDDED_WALLET_SESSION_TTL_SECONDS', () => {
  it('given nothing, then sessions last 900 s (the reference’s 15 minutes)', () => {
    expect(parseEmbeddedWalletConfig({}).sessionTtlSeconds).toBe(900);
    expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: '' }).sessionTtlSeconds).toBe(900);
  });

  it('given a whole number of seconds, then that lifetime', () =>
    expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: '20' }).sessionTtlSeconds).toBe(20));

  it.each(['0', '-5', '1.5', 'soon'])('given %s, then it refuses to start', (value) => {
    expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_SESSION_TTL_SECONDS: value })).toThrow(
      /EMBEDDED_WALLET_SESSION_TTL_SECONDS must be a whole number/,
    );
  });
});

describe('EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS', () => {
  it('given nothing, then sandbox mail is purged every 60 s', () => expect(parseEmbeddedWalletConfig({}).mailboxSweepSeconds).toBe(60));
  it('given 0, then it refuses to start', () =>
    expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_MAILBOX_SWEEP_SECONDS: '0' })).toThrow(/whole number/));
});

describe('EMBEDDED_WALLET_AUTH_FAILURES_MAX', () => {
  it('given nothing, then five failures lock', () => expect(parseEmbeddedWalletConfig({}).authFailuresMax).toBe(5));
  it('given a number, then that many', () =>
    expect(parseEmbeddedWalletConfig({ EMBEDDED_WALLET_AUTH_FAILURES_MAX: '1000' }).authFailuresMax).toBe(1000));
  it('given 0, then it refuses to start', () =>
    expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_AUTH_FAILURES_MAX: '0' })).toThrow(/whole number/));
});

describe('EMBEDDED_WALLET_KEY_ENCRYPTION_KEY', () => {
  it('given nothing outside production, then the development key', () =>
    expect(parseWalletKeyEncryptionKey({ NODE_ENV: 'development' })).toHaveLength(32));

  it('given nothing in production, then it refuses to start and says how to generate one', () => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production' })).toThrow(/required in production.*openssl rand -base64 32/);
  });

  it.each(PUBLIC_WALLET_KEY_ENCRYPTION_KEYS)('given the public default %s in production, then it refuses to start', (key) => {
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: key })).toThrow(
      /publicly known default.*openssl rand -base64 32/,
    );
    expect(() => parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: ` ${key}\n` })).toThrow(
      /publicly known default/,
    );
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
    expect(parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: key })).toEqual(
      Buffer.from(key, 'base64'),
    );
  });

  it.each([16, 31, 33])('given a key of %i bytes, then it refuses to start', (length) => {
    expect(() =>
      parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: randomBytes(length).toString('base64') }),
    ).toThrow(/must be 32 bytes/);
  });

  it('given the deploy placeholder, then it refuses to start', () => {
    expect(() =>
      parseWalletKeyEncryptionKey({ NODE_ENV: 'production', EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: 'replace-with-openssl-rand-base64-32' }),
    ).toThrow(/must be 32 bytes/);
  });
});

describe('SMTP_* and MAIL_FROM', () => {
  const relay = { SMTP_HOST: 'smtp.example.com', MAIL_FROM: 'otp@example.com' };

  it('given no SMTP_HOST, then no relay (production OTP challenges answer 503)', () =>
    expect(parseEmbeddedWalletConfig({}).smtp).toBeNull());

  it('given every variable empty, as compose passes unset ones, then no relay and no signing key', () => {
    const names = [
      'SMTP_HOST',
      'SMTP_PORT',
      'SMTP_SECURE',
      'SMTP_REQUIRE_TLS',
      'SMTP_USER',
      'SMTP_PASSWORD',
      'SMTP_TIMEOUT_MS',
      'MAIL_FROM',
      'EMBEDDED_WALLET_EXPORT_SIGNING_KEY',
    ];
    const config = parseEmbeddedWalletConfig(Object.fromEntries(names.map((name) => [name, ''])));
    expect([config.smtp, config.exportSigningKey]).toEqual([null, null]);
  });

  it('given a host and empty optional settings, then the defaults', () => {
    const smtp = parseEmbeddedWalletConfig({
      ...relay,
      SMTP_PORT: '',
      SMTP_SECURE: '',
      SMTP_REQUIRE_TLS: '',
      SMTP_USER: '',
      SMTP_PASSWORD: '',
      SMTP_TIMEOUT_MS: '',
    }).smtp;
    expect(smtp).toMatchObject({ port: 587, secure: false, requireTls: true, auth: null, timeoutMs: 10_000 });
  });

  it('given a host and MAIL_FROM, then port 587 with STARTTLS required, no AUTH, a 10 s limit', () => {
    expect(parseEmbeddedWalletConfig(relay).smtp).toEqual({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTls: true,
      auth: null,
      from: { name: '', address: 'otp@example.com' },
      timeoutMs: 10_000,
    });
  });

  it('given SMTP_SECURE, then port 465 by default; and every setting as given', () => {
    expect(parseEmbeddedWalletConfig({ ...relay, SMTP_SECURE: 'true' }).smtp).toMatchObject({ secure: true, port: 465 });
    const smtp = parseEmbeddedWalletConfig({
      ...relay,
      SMTP_PORT: '2525',
      SMTP_REQUIRE_TLS: 'false',
      SMTP_USER: 'u',
      SMTP_PASSWORD: 'p',
      SMTP_TIMEOUT_MS: '3000',
      MAIL_FROM: 'Acme <otp@acme.test>',
    }).smtp;
    expect(smtp).toMatchObject({
      port: 2525,
      requireTls: false,
      auth: { user: 'u', pass: 'p' },
      from: { name: 'Acme', address: 'otp@acme.test' },
      timeoutMs: 3000,
    });
  });

  it.each([
    [{ MAIL_FROM: '' }, /MAIL_FROM is required/],
    [{ MAIL_FROM: 'not-an-address' }, /MAIL_FROM must be one email address/],
    [{ MAIL_FROM: 'a@example.com, b@example.com' }, /MAIL_FROM must be one email address/],
    [{ SMTP_USER: 'u' }, /SMTP_USER and SMTP_PASSWORD go together/],
    [{ SMTP_PORT: '70000' }, /SMTP_PORT must be a port number/],
    [{ SMTP_SECURE: 'yes' }, /SMTP_SECURE must be true or false/],
    [{ SMTP_TIMEOUT_MS: '30000' }, /SMTP_TIMEOUT_MS must be a whole number of milliseconds from 100 to 15000/],
  ])('given %o, then it refuses to start', (change, message) =>
    expect(() => parseEmbeddedWalletConfig({ ...relay, ...change })).toThrow(message),
  );
});

describe('EMBEDDED_WALLET_EXPORT_SIGNING_KEY', () => {
  it('given nothing, then production bundles are unsigned', () => expect(parseEmbeddedWalletConfig({}).exportSigningKey).toBeNull());

  it('given a P-256 private key in hex, then it and its uncompressed public key', () => {
    const key = parseEmbeddedWalletConfig({ EMBEDDED_WALLET_EXPORT_SIGNING_KEY: '11'.repeat(32) }).exportSigningKey;
    expect(key).toEqual({ privateKeyHex: '11'.repeat(32), publicKeyHex: expect.stringMatching(/^04[0-9a-f]{128}$/) });
  });

  it.each(['00'.repeat(32), 'abc', 'x'.repeat(64)])('given %s, then it refuses to start and says how to make one', (value) => {
    expect(() => parseEmbeddedWalletConfig({ EMBEDDED_WALLET_EXPORT_SIGNING_KEY: value })).toThrow(
      /EMBEDDED_WALLET_EXPORT_SIGNING_KEY is not a P-256 private key.*generate one/,
    );
  });
});
