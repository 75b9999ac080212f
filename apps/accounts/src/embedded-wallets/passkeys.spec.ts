// When the reference's sandbox passkey signature stands in for WebAuthn, and when it does not.
import { type PasskeyKey, SANDBOX_PASSKEY_SIGNATURE, sandboxAssertionAccepted } from './passkeys';

const key: PasskeyKey = { credentialId: 'cred-1', publicKey: 'AQID', counter: 3 };
const assertion = (overrides: Record<string, unknown> = {}) => ({ credentialId: 'cred-1', clientDataJson: 'e30', authenticatorData: 'AA', signature: SANDBOX_PASSKEY_SIGNATURE, ...overrides });

describe('sandbox passkey assertions', () => {
  it('given the sandbox signature on a sandbox platform, then WebAuthn is skipped', () => expect(sandboxAssertionAccepted(assertion(), key, true)).toBe(true));
  it('given the sandbox signature on a production platform, then the assertion is verified for real (and fails there)', () => expect(sandboxAssertionAccepted(assertion(), key, false)).toBe(false));
  it('given a real signature on a sandbox platform, then it is verified for real', () => expect(sandboxAssertionAccepted(assertion({ signature: 'MEUCIQ' }), key, true)).toBe(false));
  it('given the sandbox signature naming another passkey, then 401', () =>
    expect(() => sandboxAssertionAccepted(assertion({ credentialId: 'cred-2' }), key, true)).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 })));
  it.each([null, 'text', 42])('given an assertion that is %p, then it is verified for real', (value) => expect(sandboxAssertionAccepted(value, key, true)).toBe(false));
});
