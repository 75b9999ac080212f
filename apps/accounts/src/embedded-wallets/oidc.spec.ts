// The OIDC rules of OAUTH credentials: the claims a token must carry, the audiences per platform,
// sandbox tokens, the issuers' configuration, and which failures are the token's (401, counted toward
// the lock) and which the issuer's (503, not counted).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { countsTowardLock } from './auth-rules';
import {
  checkOidcClaims,
  JWKS_TIMEOUT_MS,
  jwksOutageOf,
  nonceFor,
  oidcAudiencesOf,
  OidcVerifier,
  parseOidcIssuers,
  sandboxOidcClaims,
} from './oidc';

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

  const verifier = new OidcVerifier([], { jwksTimeoutMs: JWKS_TIMEOUT_MS });
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

describe('jwksOutageOf', () => {
  const socketError = (code: string, syscall?: string) => Object.assign(new Error(`${syscall ?? 'socket'} ${code}`), { code, syscall });
  it.each([
    ['a key set fetch that timed out', new errors.JWKSTimeout(), 'ERR_JWKS_TIMEOUT'],
    [
      'a key set answer that is not 200',
      new errors.JOSEError('Expected 200 OK from the JSON Web Key Set HTTP response'),
      'ERR_JOSE_GENERIC',
    ],
    ['a key set answer that is no key set', new errors.JWKSInvalid(), 'ERR_JWKS_INVALID'],
    ['a refused connection', socketError('ECONNREFUSED', 'connect'), 'ECONNREFUSED'],
    ['an unknown host', socketError('ENOTFOUND', 'getaddrinfo'), 'ENOTFOUND'],
    ['a socket hang up', socketError('ECONNRESET'), 'ECONNRESET'],
    ['a fetch that failed', new TypeError('fetch failed', { cause: socketError('UND_ERR_CONNECT_TIMEOUT') }), 'UND_ERR_CONNECT_TIMEOUT'],
    ['an aborted fetch', Object.assign(new Error('aborted'), { name: 'TimeoutError' }), 'TimeoutError'],
  ])('given %s, then the issuer’s outage', (_name, error, reason) => expect(jwksOutageOf(error)).toBe(reason));
  it.each([
    ['a signature that does not verify', new errors.JWSSignatureVerificationFailed()],
    ['a key id the key set does not hold', new errors.JWKSNoMatchingKey()],
    ['a claim jose refuses', new errors.JWTClaimValidationFailed('unexpected "iss" claim value', {}, 'iss', 'check_failed')],
    ['a malformed token', new errors.JWSInvalid('Invalid Compact JWS')],
    ['an error of no network', new TypeError('Cannot read properties of undefined')],
  ])('given %s, then none: the token was judged', (_name, error) => expect(jwksOutageOf(error)).toBeNull());
});

describe('an issuer whose key set cannot be fetched', () => {
  const servers: Server[] = [];
  const listen = async (handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> => {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  afterAll(async () => {
    for (const server of servers) server.closeAllConnections();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  });

  /** A token of the issuer, signed by a key of its own; the verifier takes 200 ms at most to fetch the key set. */
  const verifyAt = async (issuer: string) => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(claims({ iss: issuer })).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
    const issuerVerifier = new OidcVerifier([{ issuer, jwksUri: `${issuer}/jwks` }], { jwksTimeoutMs: 200 });
    return issuerVerifier.verify(token, now, { sandbox: false });
  };
  const refusalOf = async (verifying: Promise<unknown>) => {
    const error = await verifying.then(
      () => null,
      (refused: unknown) => refused,
    );
    const { status, code, details } = error as { status: number; code: string; details?: { reason?: string } };
    return { status, code, reason: details?.reason, countsTowardLock: countsTowardLock(error) };
  };

  it('given an issuer that refuses the connection, then 503 OIDC_ISSUER_UNAVAILABLE that counts toward no lock', async () => {
    const { server, url } = await listen(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    expect(await refusalOf(verifyAt(url))).toEqual({
      status: 503,
      code: 'OIDC_ISSUER_UNAVAILABLE',
      reason: 'ECONNREFUSED',
      countsTowardLock: false,
    });
  });
  it('given an issuer that never answers, then 503 once the fetch times out, counted toward no lock', async () => {
    const { url } = await listen(() => undefined);
    expect(await refusalOf(verifyAt(url))).toEqual({
      status: 503,
      code: 'OIDC_ISSUER_UNAVAILABLE',
      reason: 'ERR_JWKS_TIMEOUT',
      countsTowardLock: false,
    });
  });
  it('given an issuer whose key set answers 500, then 503, counted toward no lock', async () => {
    const { url } = await listen((_request, response) => response.writeHead(500).end());
    expect(await refusalOf(verifyAt(url))).toMatchObject({ status: 503, reason: 'ERR_JOSE_GENERIC', countsTowardLock: false });
  });
  it('given an issuer whose key set holds another key, then 401: the token was judged, and it counts toward the lock', async () => {
    const other = await exportJWK((await generateKeyPair('ES256')).publicKey);
    const jwks = JSON.stringify({ keys: [{ ...other, kid: 'k2', alg: 'ES256', use: 'sig' }] });
    const { url } = await listen((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
    expect(await refusalOf(verifyAt(url))).toEqual({
      status: 401,
      code: 'UNAUTHORIZED',
      reason: expect.any(String),
      countsTowardLock: true,
    });
  });
});
