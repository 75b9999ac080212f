import { createHash, timingSafeEqual } from 'node:crypto';

// Who may open the console: operators, with a credential of the console's own, never a platform
// API token. A platform token is a Basic clientId:clientSecret the gateway checks against the
// platform service; the console knows nothing of those tokens, so none of them can match here.

/** CONSOLE_TOKEN (Bearer) and CONSOLE_USERS (Basic name:password, the password kept as its SHA-256). */
export type OperatorCredentials = { tokenDigest: Buffer | null; users: Map<string, Buffer> };

export type AuthDecision = { allowed: true; operator: string } | { allowed: false; status: 401; reason: string };

const MIN_TOKEN_CHARS = 24;
const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
/** Digests of equal length compared in constant time, so the comparison leaks nothing of the secret. */
const sameDigest = (left: Buffer, right: Buffer): boolean => left.length === right.length && timingSafeEqual(left, right);

/**
 * Reads CONSOLE_TOKEN and CONSOLE_USERS ("alice:<sha256 hex of her password>,bob:…"). Throws, so the
 * console refuses to start, when neither is set or one is malformed: an open console would show
 * every platform's payments.
 */
export const parseOperatorCredentials = (token: string | undefined, users: string | undefined): OperatorCredentials => {
  const credentials: OperatorCredentials = { tokenDigest: null, users: new Map() };
  if (token) {
    if (token.length < MIN_TOKEN_CHARS) {
      throw new Error(`CONSOLE_TOKEN must be at least ${MIN_TOKEN_CHARS} characters (e.g. openssl rand -hex 24).`);
    }
    credentials.tokenDigest = sha256(token);
  }
  for (const entry of (users ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const match = /^([^:\s]+):([0-9a-fA-F]{64})$/.exec(entry);
    if (!match) {
      const name = entry.split(':')[0];
      throw new Error(`CONSOLE_USERS entries are name:<sha256 hex of the password> (printf %s 'password' | sha256sum); "${name}" is not.`);
    }
    credentials.users.set(match[1] as string, Buffer.from(match[2] as string, 'hex'));
  }
  if (!credentials.tokenDigest && credentials.users.size === 0) {
    throw new Error('Set CONSOLE_TOKEN or CONSOLE_USERS: the console never runs without an operator credential.');
  }
  return credentials;
};

const basic = (encoded: string): { name: string; password: string } | null => {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : null;
};

/** Decides from the Authorization header alone; every refusal is the same 401, so it tells nothing of which part was wrong. */
export const decideOperator = (credentials: OperatorCredentials, authorization: string | undefined): AuthDecision => {
  const refuse = (reason: string): AuthDecision => ({ allowed: false, status: 401, reason });
  if (!authorization) return refuse('no credentials');
  const [scheme, value = ''] = authorization.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() === 'bearer') {
    const matches = credentials.tokenDigest !== null && sameDigest(sha256(value), credentials.tokenDigest);
    return matches ? { allowed: true, operator: 'token' } : refuse('wrong bearer token');
  }
  if (scheme?.toLowerCase() === 'basic') {
    const pair = basic(value);
    const expected = pair ? credentials.users.get(pair.name) : undefined;
    // The digest is computed even for an unknown name, so the time taken does not say which names exist.
    const given = sha256(pair?.password ?? '');
    return expected && pair && sameDigest(given, expected) ? { allowed: true, operator: pair.name } : refuse('wrong name or password');
  }
  return refuse(`unsupported scheme ${scheme ?? ''}`);
};
