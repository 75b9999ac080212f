// When the reference's sandbox passkey signature stands in for WebAuthn, and when it does not;
// and which relying parties passkeys are accepted for, in development and in production.
import { authenticatePasskey, parseWebAuthnConfig, type PasskeyKey, SANDBOX_PASSKEY_SIGNATURE, sandboxAssertionAccepted } from './passkeys';

const key: PasskeyKey = { credentialId: 'cred-1', publicKey: 'AQID', counter: 3 };
const assertion = (overrides: Record<string, unknown> = {}) => ({
  credentialId: 'cred-1',
  clientDataJson: 'e30',
  authenticatorData: 'AA',
  signature: SANDBOX_PASSKEY_SIGNATURE,
  ...overrides,
});

describe('sandbox passkey assertions', () => {
  it('given the sandbox signature on a sandbox platform, then WebAuthn is skipped', () =>
    expect(sandboxAssertionAccepted(assertion(), key, true)).toBe(true));
  it('given the sandbox signature on a production platform, then the assertion is verified for real (and fails there)', () =>
    expect(sandboxAssertionAccepted(assertion(), key, false)).toBe(false));
  it('given a real signature on a sandbox platform, then it is verified for real', () =>
    expect(sandboxAssertionAccepted(assertion({ signature: 'MEUCIQ' }), key, true)).toBe(false));
  it('given the sandbox signature naming another passkey, then 401', () =>
    expect(() => sandboxAssertionAccepted(assertion({ credentialId: 'cred-2' }), key, true)).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }),
    ));
  it.each([null, 'text', 42])('given an assertion that is %p, then it is verified for real', (value) =>
    expect(sandboxAssertionAccepted(value, key, true)).toBe(false),
  );
});

describe('EMBEDDED_WALLET_WEBAUTHN_RP_IDS and _ORIGINS', () => {
  it('given nothing outside production, then localhost for development', () =>
    expect(parseWebAuthnConfig({})).toEqual({ rpIds: ['localhost'], origins: ['http://localhost:3000'] }));

  it('given nothing in production, then no relying party: the localhost defaults are never used and passkeys answer 503', async () => {
    const config = parseWebAuthnConfig({ NODE_ENV: 'production' });
    expect(config).toEqual({ rpIds: [], origins: [] });
    await expect(authenticatePasskey(assertion({ signature: 'MEUCIQ' }) as never, 'ab', key, config)).rejects.toMatchObject({
      code: 'PASSKEY_UNAVAILABLE',
      status: 503,
    });
  });

  it.each([
    ['localhost', 'https://wallet.example.com'],
    ['wallet.example.com', 'http://localhost:3000'],
    ['wallet.example.com', 'https://127.0.0.1:8443'],
    ['app.localhost', 'https://wallet.example.com'],
  ])('given rp id %s and origin %s in production, then it refuses to start', (rpId, origin) =>
    expect(() =>
      parseWebAuthnConfig({ NODE_ENV: 'production', EMBEDDED_WALLET_WEBAUTHN_RP_IDS: rpId, EMBEDDED_WALLET_WEBAUTHN_ORIGINS: origin }),
    ).toThrow(/loopback/),
  );

  it('given only one of the two in production, then it refuses to start', () =>
    expect(() => parseWebAuthnConfig({ NODE_ENV: 'production', EMBEDDED_WALLET_WEBAUTHN_RP_IDS: 'wallet.example.com' })).toThrow(
      /set together/,
    ));

  it('given the platform app’s domain in production, then that relying party', () =>
    expect(
      parseWebAuthnConfig({
        NODE_ENV: 'production',
        EMBEDDED_WALLET_WEBAUTHN_RP_IDS: 'wallet.example.com',
        EMBEDDED_WALLET_WEBAUTHN_ORIGINS: 'https://wallet.example.com',
      }),
    ).toEqual({
      rpIds: ['wallet.example.com'],
      origins: ['https://wallet.example.com'],
    }));
});
