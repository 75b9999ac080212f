import { checkOidcClaims, nonceFor, oidcAudiencesOf, OidcVerifier, parseOidcIssuers, sandboxOidcClaims } from './oidc';

const now = new Date('2026-11-25T12:00:00Z');
const seconds = now.getTime() / 1000;
const claims = (overrides: Record<string, unknown> = {}) => ({
  iss: 'https://accounts.google.com',
  aud: 'client-1',
  sub: 'user-1',
  iat: seconds - 10,
  exp: seconds + 600,
  ...overrides,
});
const reasonOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return String((error as { details?: { reason?: string } }).details?.reason);
  }
  return 'accepted';
};

describe('checkOidcClaims', () => {
  it('given a fresh token, then its identity is iss, aud and sub', () =>
    expect(checkOidcClaims(claims(), now)).toEqual({ iss: 'https://accounts.google.com', aud: 'client-1', sub: 'user-1' }));
  it('given a one-element aud array, then it is the aud', () =>
    expect(checkOidcClaims(claims({ aud: ['client-1'] }), now).aud).toBe('client-1'));
  it.each([
    ['two audiences', { aud: ['a', 'b'] }, /aud/],
    ['an empty sub', { sub: '' }, /sub/],
    ['an iat 66 s old', { iat: seconds - 66 }, /iat/],
    ['an iat in the future', { iat: seconds + 30 }, /iat/],
    ['a string iat', { iat: String(seconds) }, /iat/],
    ['an expired token', { exp: seconds - 10 }, /expired/],
  ])('given %s, then 401', (_name, overrides, reason) => expect(reasonOf(() => checkOidcClaims(claims(overrides), now))).toMatch(reason));
  it('given an iat 62 s old, then the 5 s skew still accepts it', () =>
    expect(reasonOf(() => checkOidcClaims(claims({ iat: seconds - 62 }), now))).toBe('accepted'));
  it('given a verify, then the nonce must be sha256(clientPublicKey)', () => {
    const key = `04${'a'.repeat(128)}`;
    expect(reasonOf(() => checkOidcClaims(claims({ nonce: nonceFor(key) }), now, { nonce: nonceFor(key) }))).toBe('accepted');
    expect(reasonOf(() => checkOidcClaims(claims({ nonce: 'other' }), now, { nonce: nonceFor(key) }))).toMatch(/nonce/);
  });
  it('given a verify, then the identity must be the registered one', () =>
    expect(
      reasonOf(() =>
        checkOidcClaims(claims({ sub: 'user-2' }), now, {
          identity: { iss: 'https://accounts.google.com', aud: 'client-1', sub: 'user-1' },
        }),
      ),
    ).toMatch(/match/));
});

describe('OIDC audiences per platform', () => {
  it('given the platform’s client ids, then a token for one of them is accepted and one for another app is refused', () => {
    expect(reasonOf(() => checkOidcClaims(claims(), now, { audiences: ['client-1', 'client-2'] }))).toBe('accepted');
    expect(reasonOf(() => checkOidcClaims(claims({ aud: 'another-app' }), now, { audiences: ['client-1'] }))).toMatch(/oidcAudiences/);
  });
  it('given a production platform with client ids, then they are the audiences', () =>
    expect(oidcAudiencesOf({ oidcAudiences: ['client-1'] }, false)).toEqual(['client-1']));
  it.each([undefined, {}, { oidcAudiences: [] }, { oidcAudiences: 'client-1' }])(
    'given a production platform configured %p, then 400 naming the setting',
    (config) =>
      expect(() => oidcAudiencesOf(config, false)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT', status: 400, message: expect.stringMatching(/oidcAudiences/) }),
      ),
  );
  it('given a sandbox platform without client ids, then no audience is checked', () =>
    expect(oidcAudiencesOf(undefined, true)).toBeUndefined());
  it('given a sandbox platform with client ids, then they are checked too', () =>
    expect(oidcAudiencesOf({ oidcAudiences: ['client-1'] }, true)).toEqual(['client-1']));
});

/** A token as sandbox clients send it: real claims, a signature nobody can check. */
const dummySigned = (payload: Record<string, unknown>): string =>
  [
    Buffer.from(JSON.stringify({ alg: 'RS256', kid: 'dummy' })).toString('base64url'),
    Buffer.from(JSON.stringify(payload)).toString('base64url'),
    'dummy-signature',
  ].join('.');

describe('sandbox OIDC tokens', () => {
  it.each(['https://accounts.google.com', 'accounts.google.com', 'https://appleid.apple.com'])(
    'given a dummy-signed token of %s, then its claims (for checkOidcClaims to judge)',
    (iss) => expect(sandboxOidcClaims(dummySigned(claims({ iss })))).toMatchObject({ iss, sub: 'user-1' }),
  );
  it('given another issuer, then none: it must verify against its JWKS', () =>
    expect(sandboxOidcClaims(dummySigned(claims({ iss: 'https://issuer.example' })))).toBeNull());
  it.each(['', 'not-a-jwt', 'a.b.c', `x.${Buffer.from('[1]').toString('base64url')}.y`])('given %s, then none', (token) =>
    expect(sandboxOidcClaims(token)).toBeNull(),
  );

  const verifier = new OidcVerifier([]);
  it('given a sandbox platform, then the verifier takes a dummy signature of a sandbox issuer', async () =>
    expect(await verifier.verify(dummySigned(claims()), now, { sandbox: true })).toMatchObject({ iss: 'https://accounts.google.com' }));
  it('given a production platform, then the same token is refused as from an unconfigured issuer', async () =>
    expect(verifier.verify(dummySigned(claims()), now, { sandbox: false })).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 }));
  it('given a sandbox platform and an issuer outside the sandbox list, then it is refused', async () =>
    expect(verifier.verify(dummySigned(claims({ iss: 'https://issuer.example' })), now, { sandbox: true })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    }));
});

describe('parseOidcIssuers', () => {
  it('defaults to the reference issuers', () =>
    expect(parseOidcIssuers(undefined).map((issuer) => issuer.issuer)).toEqual([
      'https://accounts.google.com',
      'accounts.google.com',
      'https://appleid.apple.com',
    ]));
  it('reads a configured list and refuses a malformed one', () => {
    expect(parseOidcIssuers('[{"issuer":"http://127.0.0.1:1","jwksUri":"http://127.0.0.1:1/jwks"}]')).toHaveLength(1);
    expect(() => parseOidcIssuers('[{"issuer":1}]')).toThrow(/JSON array/);
    expect(() => parseOidcIssuers('nope')).toThrow(/must be JSON/);
  });
});
