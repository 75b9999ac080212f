import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import { DomainError, invalidInput } from '@corridor/contracts';
import { createLogger } from '@corridor/messaging';

// OAUTH credentials: OIDC ID tokens verified with jose against the configured issuers' JWKS, then
// the reference's claim rules (section (f)/(k)) as a pure function.

export type OidcIssuer = { issuer: string; jwksUri: string };
export type OidcIdentity = { iss: string; aud: string; sub: string };

export const IAT_MAX_AGE_SECONDS = 60;
export const CLOCK_SKEW_SECONDS = 5;

const unauthorized = (reason: string): DomainError =>
  new DomainError('UNAUTHORIZED', 'unauthorized', `The OIDC token is not accepted: ${reason}.`, { reason });

/** How long a key set fetch may take (jose's own default, named so it is passed explicitly). */
export const JWKS_TIMEOUT_MS = 5_000;

/** The issuer could not be asked: a 503 that judged no token, so it counts toward no lock (auth-rules.ts countsTowardLock). */
export const issuerUnavailable = (issuer: string, reason: string): DomainError =>
  new DomainError(
    'OIDC_ISSUER_UNAVAILABLE',
    'unavailable',
    `The OIDC issuer ${issuer} could not be reached to check the token’s signature (${reason}); the token was not judged, retry shortly.`,
    { issuer, reason },
  );

/** Socket and DNS failures that carry no syscall (an http client's "socket hang up" is ECONNRESET without one). */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
/** TLS and fetch (undici) failures name their layer in the code's prefix. */
const NETWORK_ERROR_PREFIXES: readonly string[] = ['ERR_TLS_', 'ERR_SSL_', 'CERT_', 'UNABLE_TO_', 'UND_ERR_'];

/** The code of a failed request to the issuer (a socket, DNS, TLS, fetch or abort error, or its cause), or null. */
const networkFailureOf = (error: unknown, depth = 0): string | null => {
  if (typeof error !== 'object' || error === null || depth > 2) return null;
  const { name, code, syscall, cause } = error as { name?: unknown; code?: unknown; syscall?: unknown; cause?: unknown };
  if (typeof code === 'string' && (typeof syscall === 'string' || NETWORK_ERROR_CODES.has(code))) return code;
  if (typeof code === 'string' && NETWORK_ERROR_PREFIXES.some((prefix) => code.startsWith(prefix))) return code;
  if (name === 'AbortError' || name === 'TimeoutError') return name;
  // fetch wraps the socket's error: TypeError('fetch failed', { cause }).
  return networkFailureOf(cause, depth + 1);
};

/**
 * Why the issuer's key set could not be had, or null when the token itself was judged and refused.
 * jose raises JWKSTimeout for a fetch that outlasts its timeout, a bare JOSEError (ERR_JOSE_GENERIC)
 * only for a key set answer that is not 200 or not JSON, and JWKSInvalid for JSON that is no key
 * set; a refused, reset or unresolvable connection comes through as the socket's own error. Every
 * other jose error (a signature, claim or key id that does not verify) is the token's.
 */
export const jwksOutageOf = (error: unknown): string | null => {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return error.code;
  if (error instanceof errors.JOSEError) return error.code === errors.JOSEError.code ? error.code : null;
  return networkFailureOf(error);
};

/** sha256(clientPublicKey) as hex: the nonce a verify token must carry, binding it to the session key's recipient. */
export const nonceFor = (clientPublicKey: string): string => createHash('sha256').update(clientPublicKey).digest('hex');

/**
 * The audiences a platform's OIDC tokens must name: its embeddedWalletConfig.oidcAudiences (a
 * Corridor extension, decision 0021). Without them a token made for any other app of the same
 * provider would pass, so a production platform must configure them (400 until it does); a sandbox
 * platform without them checks no audience, as before.
 */
export const oidcAudiencesOf = (config: Record<string, unknown> | undefined, sandbox: boolean): string[] | undefined => {
  const configured = config?.['oidcAudiences'];
  const audiences = Array.isArray(configured) ? configured.filter((item): item is string => typeof item === 'string' && item !== '') : [];
  if (audiences.length > 0) return audiences;
  if (sandbox) return undefined;
  throw invalidInput(
    'OAUTH credentials of a production platform need its OAuth client ids: set embeddedWalletConfig.oidcAudiences with PATCH /config.',
    { field: 'oidcToken' },
  );
};

/**
 * The claims of a signature-checked token: non-empty aud (string or one-element array) and sub,
 * numeric iat at most 60 s old (5 s skew), exp in the future; on verify also the nonce and the
 * identity the credential was registered with.
 */
export type ExpectedClaims = { identity?: OidcIdentity; nonce?: string; audiences?: readonly string[] };

export const checkOidcClaims = (claims: JWTPayload, now: Date, expect: ExpectedClaims = {}): OidcIdentity => {
  const nowSeconds = now.getTime() / 1000;
  const aud = Array.isArray(claims.aud) ? (claims.aud.length === 1 ? claims.aud[0] : undefined) : claims.aud;
  if (typeof claims.iss !== 'string' || claims.iss === '') throw unauthorized('iss is missing');
  if (typeof aud !== 'string' || aud === '') throw unauthorized('aud must be a non-empty string or a one-element array');
  if (expect.audiences !== undefined && !expect.audiences.includes(aud))
    throw unauthorized('aud must be one of the platform’s OAuth client ids (embeddedWalletConfig.oidcAudiences)');
  if (typeof claims.sub !== 'string' || claims.sub === '') throw unauthorized('sub is missing');
  if (typeof claims.iat !== 'number') throw unauthorized('iat must be a number');
  if (claims.iat > nowSeconds + CLOCK_SKEW_SECONDS || nowSeconds - claims.iat > IAT_MAX_AGE_SECONDS + CLOCK_SKEW_SECONDS)
    throw unauthorized(`iat must be less than ${IAT_MAX_AGE_SECONDS} s old; fetch a fresh token`);
  if (typeof claims.exp !== 'number' || claims.exp <= nowSeconds - CLOCK_SKEW_SECONDS) throw unauthorized('the token has expired');
  const identity = { iss: claims.iss, aud, sub: claims.sub };
  if (expect.nonce !== undefined && claims['nonce'] !== expect.nonce)
    throw unauthorized('nonce must be the lowercase hex sha256 of clientPublicKey');
  if (
    expect.identity &&
    (expect.identity.iss !== identity.iss || expect.identity.aud !== identity.aud || expect.identity.sub !== identity.sub)
  ) {
    throw unauthorized('iss, aud and sub must match the OAUTH credential being verified');
  }
  return identity;
};

/**
 * The issuers whose tokens a SANDBOX platform takes with a dummy signature (reference section (f));
 * the claim rules of checkOidcClaims still apply. Production platforms verify every token's signature.
 */
export const SANDBOX_OIDC_ISSUERS: readonly string[] = ['https://accounts.google.com', 'accounts.google.com', 'https://appleid.apple.com'];

/** A sandbox token's claims, unverified, when it decodes and names a sandbox issuer; null otherwise (it is then verified as any other). */
export const sandboxOidcClaims = (token: string): JWTPayload | null => {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    // Not a JWT: the configured-issuer path reports it.
    return null;
  }
  return typeof claims.iss === 'string' && SANDBOX_OIDC_ISSUERS.includes(claims.iss) ? claims : null;
};

/**
 * The configured issuers' key sets, fetched and cached by jose: 401 when the token does not verify,
 * 503 when the issuer's key set cannot be fetched (jwksOutageOf).
 */
export class OidcVerifier {
  private readonly keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  private readonly logger = createLogger('accounts:embedded-wallets');

  constructor(
    private readonly issuers: readonly OidcIssuer[],
    private readonly options: { jwksTimeoutMs: number },
  ) {}

  /** On a sandbox platform a token of a sandbox issuer is taken without its signature; any other is verified against its issuer's JWKS. */
  async verify(token: string, now: Date, options: { sandbox: boolean }): Promise<JWTPayload> {
    const unverified = options.sandbox ? sandboxOidcClaims(token) : null;
    if (unverified) return unverified;
    let issuer: string | undefined;
    try {
      const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { iss?: unknown };
      issuer = typeof payload.iss === 'string' ? payload.iss : undefined;
    } catch {
      // Not a JWT at all: reported below as an unknown issuer.
    }
    const configured = this.issuers.find((candidate) => candidate.issuer === issuer);
    if (!configured)
      throw unauthorized(
        `the issuer must be one of ${this.issuers.map((candidate) => candidate.issuer).join(', ') || '(none configured)'}`,
      );
    let keySet = this.keySets.get(configured.issuer);
    if (!keySet) {
      keySet = createRemoteJWKSet(new URL(configured.jwksUri), { timeoutDuration: this.options.jwksTimeoutMs });
      this.keySets.set(configured.issuer, keySet);
    }
    try {
      // exp and iat are judged by checkOidcClaims on the service clock; jose checks the signature and issuer here.
      const { payload } = await jwtVerify(token, keySet, {
        issuer: configured.issuer,
        currentDate: now,
        clockTolerance: CLOCK_SKEW_SECONDS,
      });
      return payload;
    } catch (error) {
      const outage = jwksOutageOf(error);
      if (outage === null) throw unauthorized(`its signature or claims do not verify (${(error as { code?: string }).code ?? 'invalid'})`);
      const detail = error instanceof Error ? error.message : String(error);
      this.logger.warn(
        { issuer: configured.issuer, jwksUri: configured.jwksUri, reason: outage, error: detail },
        'The OIDC issuer’s key set could not be fetched: the token was not judged, the call answered 503 and counted no failure.',
      );
      throw issuerUnavailable(configured.issuer, outage);
    }
  }
}

export const DEFAULT_OIDC_ISSUERS: readonly OidcIssuer[] = [
  { issuer: 'https://accounts.google.com', jwksUri: 'https://www.googleapis.com/oauth2/v3/certs' },
  { issuer: 'accounts.google.com', jwksUri: 'https://www.googleapis.com/oauth2/v3/certs' },
  { issuer: 'https://appleid.apple.com', jwksUri: 'https://appleid.apple.com/auth/keys' },
];

/** EMBEDDED_WALLET_OIDC_ISSUERS: JSON [{"issuer","jwksUri"}]; the reference's Google and Apple issuers when unset. */
export const parseOidcIssuers = (value: string | undefined): OidcIssuer[] => {
  if (value === undefined || value.trim() === '') return [...DEFAULT_OIDC_ISSUERS];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error(
      'EMBEDDED_WALLET_OIDC_ISSUERS must be JSON: [{"issuer": "https://accounts.google.com", "jwksUri": ' +
        '"https://www.googleapis.com/oauth2/v3/certs"}].',
    );
  }
  if (
    !Array.isArray(parsed) ||
    !parsed.every((item) => typeof item?.issuer === 'string' && typeof item?.jwksUri === 'string' && URL.canParse(item.jwksUri))
  ) {
    throw new Error('EMBEDDED_WALLET_OIDC_ISSUERS must be a JSON array of {"issuer": string, "jwksUri": URL}.');
  }
  return parsed as OidcIssuer[];
};
