// The Embedded Wallet handlers' commands: which body a handler refuses before any lookup (400 naming
// the field), and which fields it only narrows, leaving their check to the flow after the 404s.
import {
  parseAuthorizeEmailChange,
  parseChallengeCredential,
  parseCreateCredential,
  parseExportWallet,
  parseRefreshSession,
  parseUpdateWalletAccount,
  parseVerifyCredential,
  parseVerifyStamp,
  parseWalletFundedChange,
  requireClientPublicKey,
  requireOidcToken,
} from './wallet-commands';

const clientPublicKey = `04${'ab'.repeat(64)}`;
/** Data as it arrives from the gateway: JSON, whatever its declared type says. */
const fromNats = <T>(json: string): T => JSON.parse(json);
const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    const { status, code, details } = error as { status: number; code: string; details?: { field?: string } };
    return `${status} ${code} ${details?.field ?? ''}`.trim();
  }
  return 'accepted';
};

describe('parseCreateCredential', () => {
  it('given an OAUTH body, then the token and the body as sent (leg 2 resends it) with the signature headers', () => {
    const body = { type: 'OAUTH', accountId: 'InternalAccount:1', oidcToken: 'token' };
    expect(parseCreateCredential({ body, walletSignature: 's', requestId: 'r' })).toEqual({
      type: 'OAUTH',
      accountId: 'InternalAccount:1',
      oidcToken: 'token',
      body,
      headers: { walletSignature: 's', requestId: 'r' },
    });
  });
  it('given an OAUTH body without a string token, then no token: it is judged once the wallet is found', () =>
    expect(parseCreateCredential({ body: { type: 'OAUTH', accountId: 'a', oidcToken: 7 } })).toMatchObject({ oidcToken: undefined }));
  it('given a PASSKEY body without nickname and challenge, then both are empty, as the service read them before', () =>
    expect(parseCreateCredential({ body: { type: 'PASSKEY', accountId: 'a', attestation: { credentialId: 'c' } } })).toMatchObject({
      attestation: { credentialId: 'c' },
      nickname: '',
      challenge: '',
    }));
  it('given no accountId, then the id the 404 names is "undefined", as before', () =>
    expect(parseCreateCredential({ body: { type: 'EMAIL_OTP' } })).toMatchObject({ type: 'EMAIL_OTP', accountId: 'undefined' }));
  it.each(['{"type":"SMS"}', '{}', 'null', '[]'])('given the body %s, then 400 on type before anything is looked up', (body) =>
    expect(refusal(() => parseCreateCredential(fromNats(`{"body":${body}}`)))).toBe('400 INVALID_INPUT type'),
  );
});

describe('the verify and challenge commands', () => {
  it('given a verify body, then its string fields, the assertion as sent and the body as signed', () => {
    const body = { type: 'PASSKEY', assertion: { signature: 'x' }, clientPublicKey: 5 };
    expect(parseVerifyCredential({ credentialId: 'AuthMethod:1', body, requestId: 'r' })).toEqual({
      credentialId: 'AuthMethod:1',
      body,
      headers: { requestId: 'r' },
      type: 'PASSKEY',
      oidcToken: undefined,
      clientPublicKey: undefined,
      encryptedOtpBundle: undefined,
      assertion: { signature: 'x' },
    });
  });
  it('given a challenge without a body, then no client key: only a PASSKEY challenge needs one', () =>
    expect(parseChallengeCredential({ credentialId: 'AuthMethod:1' })).toEqual({
      credentialId: 'AuthMethod:1',
      clientPublicKey: undefined,
    }));
});

describe('the client key of a refresh and an export', () => {
  it('given an uncompressed P-256 key, then it is the command’s', () => {
    expect(parseRefreshSession({ sessionId: 'Session:1', body: { clientPublicKey } })).toEqual({
      sessionId: 'Session:1',
      clientPublicKey,
      headers: {},
    });
    expect(parseExportWallet({ accountId: 'InternalAccount:1', body: { clientPublicKey }, walletSignature: 's' })).toEqual({
      accountId: 'InternalAccount:1',
      clientPublicKey,
      headers: { walletSignature: 's' },
    });
  });
  it.each([undefined, 42, '02abc', `04${'g'.repeat(128)}`])(
    'given %p, then 400 on clientPublicKey before the session or wallet is looked up',
    (key) => {
      expect(refusal(() => parseRefreshSession({ sessionId: 'Session:1', body: { clientPublicKey: key } }))).toBe(
        '400 INVALID_INPUT clientPublicKey',
      );
      expect(refusal(() => parseExportWallet({ accountId: 'a', body: { clientPublicKey: key } }))).toBe(
        '400 INVALID_INPUT clientPublicKey',
      );
    },
  );
});

describe('the checks a flow runs after its lookups', () => {
  it('given a PASSKEY challenge without a key, then the 400 says a PASSKEY challenge needs it', () =>
    expect(() =>
      requireClientPublicKey(undefined, 'clientPublicKey is required for a PASSKEY challenge: an uncompressed P-256 public key in hex'),
    ).toThrow(
      'clientPublicKey is required for a PASSKEY challenge: an uncompressed P-256 public key in hex (04 followed by 128 hex digits).',
    ));
  it.each([undefined, ''])('given the token %p, then 400 on oidcToken', (token) =>
    expect(refusal(() => requireOidcToken(token))).toBe('400 INVALID_INPUT oidcToken'),
  );
  it('given a token, then it is the token', () => expect(requireOidcToken('t')).toBe('t'));
});

describe('parseUpdateWalletAccount', () => {
  it('given privateEnabled, then the command', () =>
    expect(parseUpdateWalletAccount({ accountId: 'a', body: { privateEnabled: true } })).toEqual({
      accountId: 'a',
      privateEnabled: true,
      headers: {},
    }));
  it.each([{}, { privateEnabled: 'yes' }])('given %p, then 400 on privateEnabled', (body) =>
    expect(refusal(() => parseUpdateWalletAccount({ accountId: 'a', body }))).toBe('400 INVALID_INPUT privateEnabled'),
  );
});

describe('parseAuthorizeEmailChange', () => {
  it('given an update with an email, then the email and the whole body, which the wallet signs', () =>
    expect(parseAuthorizeEmailChange({ customerId: 'Customer:1', body: { email: 'a@example.com', fullName: 'A' } })).toEqual({
      customerId: 'Customer:1',
      email: 'a@example.com',
      body: { email: 'a@example.com', fullName: 'A' },
      headers: {},
    }));
  it('given an update without a string email, then no email: the update proceeds without the wallet', () =>
    expect(parseAuthorizeEmailChange({ customerId: 'Customer:1', body: { email: null } }).email).toBeUndefined());
});

describe('parseVerifyStamp and parseWalletFundedChange', () => {
  it('given a grant without its currency, then 400 on grant.currency', () =>
    expect(
      refusal(() => parseVerifyStamp({ accountId: 'a', payloadToSign: 'p', grant: { transactionId: 't', amount: '1', currency: '' } })),
    ).toBe('400 INVALID_INPUT grant.currency'));
  it('given an empty payloadToSign, then 400 on it', () =>
    expect(refusal(() => parseVerifyStamp({ accountId: 'a', payloadToSign: '' }))).toBe('400 INVALID_INPUT payloadToSign'));
  it('given another operation, then 400 on operation', () =>
    expect(
      refusal(() => parseWalletFundedChange(fromNats('{"accountIds":[],"bindAccountIds":[],"operation":"PAY","targetId":"t","body":{}}'))),
    ).toBe('400 INVALID_INPUT operation'));
  it('given account ids with non-strings, then only the strings', () =>
    expect(
      parseWalletFundedChange(fromNats('{"accountIds":["a",1],"bindAccountIds":"x","operation":"TRANSFER_OUT","targetId":"t","body":[]}')),
    ).toEqual({ accountIds: ['a'], bindAccountIds: [], operation: 'TRANSFER_OUT', targetId: 't', body: {} }));
});
