// Embedded Wallets end to end through the gateway, driven by a client written from the reference
// alone (support/wallet-client.ts): wallet accounts for platforms that enable them, EMAIL_OTP
// challenge and verify (HPKE-sealed OTP, TEK-signed second leg), sessions (list, refresh, revoke,
// self-logout, expiry on the service clock), the signed retry on PATCH and export with every 401
// code, the last credential kept, tenancy, the reference's sandbox values (taken on sandbox
// platforms, refused on production ones), and no secret in any event store or log.
import { createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type KeyLike, SignJWT } from 'jose';
import { Client } from 'pg';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { createApi, type Credentials, type Reply } from './support/api';
import { eventually } from '@corridor/testing';
import { type Stack, startStack } from './support/stack';
import {
  assertPasskey,
  createPasskey,
  decryptExport,
  decryptSessionKey,
  encryptOtp,
  genKeypair,
  type KeyPair,
  oidcNonce,
  signedHeaders,
  stamp,
} from './support/wallet-client';

const SESSION_TTL_SECONDS = 20;
const keyEncryptionKey = randomBytes(32);

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
/** A production platform with Embedded Wallets: the sandbox values must be refused there. */
let production: Credentials;
let pg: Client;
/** A local OIDC issuer: its JWKS is served over HTTP and configured as EMBEDDED_WALLET_OIDC_ISSUERS. */
const oidc = { server: undefined as Server | undefined, issuer: '', privateKey: undefined as KeyLike | undefined };
const idToken = (
  claims: { sub: string; nonce?: string; email?: string; iatOffsetSeconds?: number },
  key = oidc.privateKey!,
): Promise<string> => {
  const { sub, iatOffsetSeconds = 0, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
    .setIssuer(oidc.issuer)
    .setAudience('corridor-wallet-app')
    .setSubject(sub)
    .setIssuedAt(Math.floor(Date.now() / 1000) + iatOffsetSeconds)
    .setExpirationTime('5m')
    .sign(key);
};
/** A token as the reference's sandbox clients send it: real claims, a dummy signature nobody can check. */
const sandboxOidcToken = (claims: { sub: string; nonce?: string; iss?: string; iatOffsetSeconds?: number }): string => {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    iss: claims.iss ?? 'https://accounts.google.com',
    aud: 'sandbox-client',
    sub: claims.sub,
    iat: now + (claims.iatOffsetSeconds ?? 0),
    exp: now + 300,
    ...(claims.nonce ? { nonce: claims.nonce } : {}),
  };
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', kid: 'sandbox' })}.${part(payload)}.dummy-signature`;
};
const SANDBOX_SIGNATURE = 'sandbox-valid-signature';
const SANDBOX_PASSKEY_SIGNATURE = 'sandbox-valid-passkey-signature';
/** The retry headers of a 202 challenge with the sandbox signature in place of a stamp. */
const sandboxHeaders = (challenge: { requestId: string }): Record<string, string> => ({
  'Grid-Wallet-Signature': SANDBOX_SIGNATURE,
  'Request-Id': challenge.requestId,
});

/** Every secret a test saw: none may appear in an event store or a log. */
const secrets: string[] = [];

type Wallet = { customerId: string; accountId: string; credentialId: string; email: string };
type Session = { id: string; privHex: string };

let customers = 0;
const newCustomer = async (auth: Credentials): Promise<{ customerId: string; email: string }> => {
  customers += 1;
  const email = `wallet.user.${customers}.${Date.now()}@example.com`;
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Wanda ${customers}`, email, currencies: ['USD'] },
  });
  expect(created.status).toBe(201);
  return { customerId: created.body.id as string, email };
};

const walletAccounts = async (auth: Credentials, customerId: string): Promise<any[]> => {
  const reply = await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET`, {
    auth,
  });
  expect(reply.status).toBe(200);
  return reply.body.data as any[];
};

const walletOf = async (auth: Credentials, customerId: string, email: string): Promise<Wallet> => {
  const [account] = await eventually(
    () => walletAccounts(auth, customerId),
    (list) => list.length === 1,
    30_000,
  );
  const credentials = await api.call('GET', `/auth/credentials?accountId=${account.id}`, { auth });
  expect(credentials.status).toBe(200);
  return { customerId, accountId: account.id, credentialId: credentials.body.data[0].id, email };
};

/** The addresses of the wallet's EMAIL_OTP credentials, as the credential list shows them. */
const credentialEmails = async (wallet: Wallet, auth: Credentials = platformA): Promise<string[]> =>
  ((await api.call('GET', `/auth/credentials?accountId=${wallet.accountId}`, { auth })).body.data as { type: string; nickname: string }[])
    .filter((row) => row.type === 'EMAIL_OTP')
    .map((row) => row.nickname);

const newWallet = async (auth: Credentials = platformA): Promise<Wallet> => {
  const { customerId, email } = await newCustomer(auth);
  return walletOf(auth, customerId, email);
};

const mailbox = async (auth: Credentials, accountId: string): Promise<{ to: string; otpCode: string }[]> =>
  (await api.call('GET', `/sandbox/auth/mailbox?accountId=${accountId}`, { auth, unchecked: true })).body.data;

const challenge = async (wallet: Wallet, auth = platformA): Promise<string> => {
  const reply = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth, body: {} });
  expect(reply.status).toBe(200);
  expect(reply.body).toMatchObject({ id: wallet.credentialId, type: 'EMAIL_OTP', accountId: wallet.accountId, nickname: wallet.email });
  return reply.body.otpEncryptionTargetBundle as string;
};

/** challenge → read the OTP from the sandbox mailbox → seal it with the TEK → verify (202) → signed retry (200). */
const login = async (wallet: Wallet, options: { otp?: string } = {}): Promise<Session> => {
  const bundle = await challenge(wallet);
  const mail = await mailbox(platformA, wallet.accountId);
  expect(mail[0]?.to).toBe(wallet.email);
  // The platform's embeddedWalletConfig: 10 characters from an alphabet with letters.
  expect(mail[0]?.otpCode).toMatch(/^[A-Z0-9]{10}$/);
  const otp = options.otp ?? mail[0]!.otpCode;
  secrets.push(mail[0]!.otpCode);
  const tek = genKeypair();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, otp) };
  const first = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platformA, body });
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({ type: 'EMAIL_OTP', requestId: expect.stringMatching(/^Request:/) });
  const second = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, {
    auth: platformA,
    body,
    headers: signedHeaders(tek.privHex, first.body),
  });
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ id: expect.stringMatching(/^Session:/), type: 'EMAIL_OTP', accountId: wallet.accountId });
  expect(second.body.encryptedSessionSigningKey).toBeUndefined();
  secrets.push(tek.privHex);
  return { id: second.body.id, privHex: tek.privHex };
};

/** Leg 1 then a leg 2 signed with the given key. */
const signedCall = async (
  method: string,
  path: string,
  body: unknown,
  privHex: string,
  auth = platformA,
): Promise<{ first: Reply; second: Reply }> => {
  const first = await api.call(method, path, { auth, ...(body === undefined ? {} : { body }) });
  expect(first.status).toBe(202);
  const second = await api.call(method, path, {
    auth,
    ...(body === undefined ? {} : { body }),
    headers: signedHeaders(privHex, first.body),
  });
  return { first, second };
};

beforeAll(async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  oidc.privateKey = privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256', use: 'sig' }] });
  oidc.server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(jwks));
  await new Promise<void>((resolve) => oidc.server!.listen(0, '127.0.0.1', resolve));
  const port = (oidc.server.address() as { port: number }).port;
  oidc.issuer = `http://127.0.0.1:${port}`;
  stack = await startStack({
    env: {
      EMBEDDED_WALLET_SESSION_TTL_SECONDS: String(SESSION_TTL_SECONDS),
      EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: keyEncryptionKey.toString('base64'),
      EMBEDDED_WALLET_OIDC_ISSUERS: JSON.stringify([{ issuer: oidc.issuer, jwksUri: `${oidc.issuer}/jwks` }]),
    },
  });
  api = createApi(stack, 'embedded-wallets');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
  expect(
    (await api.call('PATCH', '/config', { auth: production, body: { embeddedWalletConfig: { appName: 'Live Wallet' } } })).status,
  ).toBe(200);
  const enabled = await api.call('PATCH', '/config', {
    auth: platformA,
    body: { embeddedWalletConfig: { appName: 'Acme Wallet', otpLength: 10, alphanumeric: true } },
  });
  expect(enabled.status).toBe(200);
  expect(enabled.body.embeddedWalletConfig).toMatchObject({ appName: 'Acme Wallet', otpLength: 10, alphanumeric: true });
  pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await pg?.end();
  await stack?.close();
  await new Promise((resolve) => (oidc.server ? oidc.server.close(resolve) : resolve(undefined)));
});

describe('wallet accounts', () => {
  it('gives a customer of a platform with Embedded Wallets one EMBEDDED_WALLET account with privateEnabled and one EMAIL_OTP credential for their email', async () => {
    const wallet = await newWallet();
    const [account] = await walletAccounts(platformA, wallet.customerId);
    expect(account).toMatchObject({ type: 'EMBEDDED_WALLET', status: 'ACTIVE', privateEnabled: false, customerId: wallet.customerId });
    const credentials = await api.call('GET', `/auth/credentials?accountId=${wallet.accountId}`, { auth: platformA });
    expect(credentials.body.data).toEqual([
      {
        id: wallet.credentialId,
        accountId: wallet.accountId,
        type: 'EMAIL_OTP',
        nickname: wallet.email,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    ]);
  });

  it('gives existing customers a wallet when their platform enables Embedded Wallets, and none before', async () => {
    const platformC = (await stack.createPlatform()).token as Credentials;
    const { customerId, email } = await newCustomer(platformC);
    // The customer's USD account opens through the same events; once it exists, a wallet would have too.
    await eventually(
      () => api.call('GET', `/customers/internal-accounts?customerId=${customerId}`, { auth: platformC }),
      (reply) => reply.body.data.length >= 1,
    );
    expect(await walletAccounts(platformC, customerId)).toEqual([]);
    expect(
      (await api.call('PATCH', '/config', { auth: platformC, body: { embeddedWalletConfig: { appName: 'Late Wallet' } } })).status,
    ).toBe(200);
    const wallet = await walletOf(platformC, customerId, email);
    expect(wallet.accountId).toMatch(/^InternalAccount:/);
  });

  it('a platform without Embedded Wallets opens no wallet', async () => {
    const { customerId } = await newCustomer(platformB);
    await eventually(
      () => api.call('GET', `/customers/internal-accounts?customerId=${customerId}`, { auth: platformB }),
      (reply) => reply.body.data.length >= 1,
    );
    expect(await walletAccounts(platformB, customerId)).toEqual([]);
  });
});

describe('EMAIL_OTP challenge and verify', () => {
  it('logs in with the mailed OTP: the TEK becomes the session key and the session is listed without a key', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const sessions = await api.call('GET', `/auth/sessions?accountId=${wallet.accountId}`, { auth: platformA });
    expect(sessions.status).toBe(200);
    expect(sessions.body.data).toEqual([expect.objectContaining({ id: session.id, type: 'EMAIL_OTP', expiresAt: expect.any(String) })]);
    expect(sessions.body.data[0].encryptedSessionSigningKey).toBeUndefined();
    const ttl = Date.parse(sessions.body.data[0].expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SESSION_TTL_SECONDS * 1000);
  });

  it('takes the sandbox OTP 000000, still HPKE-encrypted', async () => {
    const wallet = await newWallet();
    await login(wallet, { otp: '000000' });
  });

  it('answers a wrong OTP with 401 and repeated failures with 429 and Retry-After', async () => {
    const wallet = await newWallet();
    const bundle = await challenge(wallet);
    const tek = genKeypair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, '999999x') };
    const statuses: number[] = [];
    let last: Reply | undefined;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      last = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platformA, body });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    expect(last!.body.code).toBe('RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const wrong = await api.call('POST', `/auth/credentials/${(await newWallet()).credentialId}/verify`, { auth: platformA, body });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'UNAUTHORIZED', message: 'Invalid OTP code' });
  });

  it('uses an OTP once, and the TEK leg only with the TEK', async () => {
    const wallet = await newWallet();
    const bundle = await challenge(wallet);
    const [mail] = await mailbox(platformA, wallet.accountId);
    secrets.push(mail!.otpCode);
    const tek = genKeypair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, mail!.otpCode) };
    const first = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platformA, body });
    expect(first.status).toBe(202);
    const again = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platformA, body });
    expect(again.status).toBe(401);
    const byOtherKey = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, {
      auth: platformA,
      body,
      headers: signedHeaders(genKeypair().privHex, first.body),
    });
    expect(byOtherKey.body.code).toBe('WALLET_SIGNATURE_INVALID');
  });
});

describe('the signed retry on PATCH /internal-accounts/{id}', () => {
  let wallet: Wallet;
  let session: Session;
  beforeAll(async () => {
    wallet = await newWallet();
    session = await login(wallet);
  });

  it('answers every 401 code of the reference, then changes privateEnabled with a valid stamp, once', async () => {
    const path = `/internal-accounts/${wallet.accountId}`;
    const first = await api.call('PATCH', path, { auth: platformA, body: { privateEnabled: true } });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:[0-9a-f-]{36}$/),
      expiresAt: expect.any(String),
    });
    const good = signedHeaders(session.privHex, first.body);
    const codeOf = async (body: unknown, headers: Record<string, string>) => {
      const reply = await api.call('PATCH', path, { auth: platformA, body, headers });
      expect(reply.status).toBe(401);
      return reply.body.code as string;
    };
    expect(await codeOf({ privateEnabled: true }, { 'Request-Id': first.body.requestId })).toBe('WALLET_SIGNATURE_MISSING');
    expect(await codeOf({ privateEnabled: true }, { 'Grid-Wallet-Signature': good['Grid-Wallet-Signature']! })).toBe('REQUEST_ID_MISSING');
    expect(await codeOf({ privateEnabled: true }, { ...good, 'Grid-Wallet-Signature': 'bm90IGEgc3RhbXA' })).toBe(
      'WALLET_SIGNATURE_MALFORMED',
    );
    expect(await codeOf({ privateEnabled: false }, good)).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    expect(await codeOf({ privateEnabled: true }, signedHeaders(genKeypair().privHex, first.body))).toBe('WALLET_SIGNATURE_INVALID');
    expect(
      await codeOf({ privateEnabled: true }, { ...good, 'Grid-Wallet-Signature': stamp(session.privHex, `${first.body.payloadToSign} `) }),
    ).toBe('WALLET_SIGNATURE_INVALID');
    expect(await codeOf({ privateEnabled: true }, { ...good, 'Request-Id': 'Request:00000000-0000-4000-8000-000000000000' })).toBe(
      'INVALID_SIGNATURE',
    );

    const done = await api.call('PATCH', path, { auth: platformA, body: { privateEnabled: true }, headers: good });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: wallet.accountId, type: 'EMBEDDED_WALLET', privateEnabled: true });
    const reused = await api.call('PATCH', path, { auth: platformA, body: { privateEnabled: true }, headers: good });
    expect(reused.status).toBe(401);
    expect(reused.body.code).toBe('INVALID_SIGNATURE');
    const [account] = await walletAccounts(platformA, wallet.customerId);
    expect(account.privateEnabled).toBe(true);
  });

  it('answers an unchanged value at once and refuses privateEnabled on a fiat account', async () => {
    const same = await api.call('PATCH', `/internal-accounts/${wallet.accountId}`, { auth: platformA, body: { privateEnabled: true } });
    expect(same.status).toBe(200);
    const fiat = (
      await api.call('GET', `/customers/internal-accounts?customerId=${wallet.customerId}&type=INTERNAL_FIAT`, { auth: platformA })
    ).body.data[0];
    const refused = await api.call('PATCH', `/internal-accounts/${fiat.id}`, { auth: platformA, body: { privateEnabled: true } });
    expect(refused.status).toBe(400);
  });
});

describe('export', () => {
  it('decrypts to the mnemonic kept encrypted at rest, and binds clientPublicKey to both legs', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const client: KeyPair = genKeypair();
    const path = `/internal-accounts/${wallet.accountId}/export`;
    const first = await api.call('POST', path, { auth: platformA, body: { clientPublicKey: client.pubHex } });
    expect(first.status).toBe(202);
    const swapped = await api.call('POST', path, {
      auth: platformA,
      body: { clientPublicKey: genKeypair().pubHex },
      headers: signedHeaders(session.privHex, first.body),
    });
    expect(swapped.status).toBe(401);
    expect(swapped.body.code).toBe('WALLET_SIGNATURE_BODY_MISMATCH');
    const done = await api.call('POST', path, {
      auth: platformA,
      body: { clientPublicKey: client.pubHex },
      headers: signedHeaders(session.privHex, first.body),
    });
    expect(done.status).toBe(200);
    expect(done.body.id).toBe(wallet.accountId);
    const outer = JSON.parse(done.body.encryptedWalletCredentials);
    expect(outer).toMatchObject({ version: 'v1.0.0', dataSignature: '', enclaveQuorumPublic: '' });
    const mnemonic = await decryptExport(done.body.encryptedWalletCredentials, client.privHex);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);
    secrets.push(mnemonic);

    // The stored mnemonic: AES-256-GCM under the key-encryption key, base64(iv ‖ tag ‖ ciphertext).
    const { rows } = await pg.query<{ sealed_mnemonic: string }>('SELECT sealed_mnemonic FROM accounts.wallet_keys WHERE account_id = $1', [
      wallet.accountId,
    ]);
    const sealed = Buffer.from(rows[0]!.sealed_mnemonic, 'base64');
    expect(rows[0]!.sealed_mnemonic).not.toContain(mnemonic);
    const decipher = createDecipheriv('aes-256-gcm', keyEncryptionKey, sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(12, 28));
    expect(Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8')).toBe(mnemonic);
  });
});

describe('sessions', () => {
  it('refreshes with the current session key into a new sealed key that signs', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const client = genKeypair();
    const { first, second } = await signedCall(
      'POST',
      `/auth/sessions/${session.id}/refresh`,
      { clientPublicKey: client.pubHex },
      session.privHex,
    );
    expect(first.body.type).toBeUndefined();
    expect(JSON.parse(first.body.payloadToSign)).toMatchObject({
      type: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
      parameters: { targetPublicKey: client.pubHex },
    });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(session.id);
    const newKey = await decryptSessionKey(second.body.encryptedSessionSigningKey, client.privHex);
    secrets.push(newKey);
    const { second: patched } = await signedCall('PATCH', `/internal-accounts/${wallet.accountId}`, { privateEnabled: true }, newKey);
    expect(patched.status).toBe(200);
  });

  it('revokes a session signed by itself (self-logout): gone from the list, its key no longer signs, a second revoke is 404', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const { first, second } = await signedCall('DELETE', `/auth/sessions/${session.id}`, undefined, session.privHex);
    expect(first.body.type).toBe('EMAIL_OTP');
    expect(second.status).toBe(204);
    expect((await api.call('GET', `/auth/sessions?accountId=${wallet.accountId}`, { auth: platformA })).body.data).toEqual([]);
    const { second: refused } = await signedCall(
      'PATCH',
      `/internal-accounts/${wallet.accountId}`,
      { privateEnabled: true },
      session.privHex,
    );
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('WALLET_SIGNATURE_INVALID');
    expect((await api.call('DELETE', `/auth/sessions/${session.id}`, { auth: platformA })).status).toBe(404);
  });

  it(`expires on the service clock (${SESSION_TTL_SECONDS} s in this stack)`, async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const first = await api.call('PATCH', `/internal-accounts/${wallet.accountId}`, { auth: platformA, body: { privateEnabled: true } });
    stack.advanceClock((SESSION_TTL_SECONDS + 1) * 1000);
    expect((await api.call('GET', `/auth/sessions?accountId=${wallet.accountId}`, { auth: platformA })).body.data).toEqual([]);
    const late = await api.call('PATCH', `/internal-accounts/${wallet.accountId}`, {
      auth: platformA,
      body: { privateEnabled: true },
      headers: signedHeaders(session.privHex, first.body),
    });
    expect(late.status).toBe(401);
    expect(late.body.code).toBe('WALLET_SIGNATURE_INVALID');
    expect(
      (await api.call('POST', `/auth/sessions/${session.id}/refresh`, { auth: platformA, body: { clientPublicKey: genKeypair().pubHex } }))
        .status,
    ).toBe(404);
  }, 60_000);
});

describe('credentials', () => {
  it('keeps the last credential and one EMAIL_OTP per account', async () => {
    const wallet = await newWallet();
    const last = await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, { auth: platformA });
    expect(last.status).toBe(400);
    expect(last.body.message).toMatch(/last credential/);
    const second = await api.call('POST', '/auth/credentials', {
      auth: platformA,
      body: { type: 'EMAIL_OTP', accountId: wallet.accountId },
    });
    expect(second.status).toBe(400);
    expect(second.body.code).toBe('EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS');
  });

  it('lists no credentials and no sessions for an account that is no Embedded Wallet (unknown, or an ordinary account): 200 and an empty list, as the reference declares', async () => {
    const unknown = 'InternalAccount:019542f5-b3e7-7d02-8000-00000000dead';
    const customer = await api.call('POST', '/customers', {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', fullName: 'No Wallet', currencies: ['USD'] },
    });
    const accounts = await eventually(
      async () =>
        (
          await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customer.body.id as string)}`, {
            auth: platformA,
          })
        ).body.data as { id: string }[],
      (list) => list.length > 0,
    );
    for (const accountId of [unknown, accounts[0]!.id]) {
      for (const path of [`/auth/credentials?accountId=${accountId}`, `/auth/sessions?accountId=${accountId}`]) {
        const reply = await api.call('GET', path, { auth: platformA });
        expect([path, reply.status, reply.body]).toEqual([path, 200, { data: [] }]);
      }
    }
  });

  it('shows another platform nothing: empty lists of its credentials and sessions, 404 for everything else', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    // The reference declares no 404 for the lists: accountId filters, and another platform's wallet has nothing here.
    for (const path of [`/auth/credentials?accountId=${wallet.accountId}`, `/auth/sessions?accountId=${wallet.accountId}`]) {
      const reply = await api.call('GET', path, { auth: platformB });
      expect([path, reply.status, reply.body]).toEqual([path, 200, { data: [] }]);
    }
    for (const [method, path, body] of [
      ['POST', `/auth/credentials/${wallet.credentialId}/challenge`, {}],
      ['DELETE', `/auth/credentials/${wallet.credentialId}`, undefined],
      ['DELETE', `/auth/sessions/${session.id}`, undefined],
      ['POST', `/internal-accounts/${wallet.accountId}/export`, { clientPublicKey: genKeypair().pubHex }],
      ['PATCH', `/internal-accounts/${wallet.accountId}`, { privateEnabled: true }],
    ] as const) {
      const reply = await api.call(method, path, { auth: platformB, ...(body ? { body } : {}) });
      expect([method, path, reply.status]).toEqual([method, path, 404]);
    }
  });
});

describe('OAUTH credentials', () => {
  it('adds an OAUTH credential with the signed retry, logs in with a fresh token, and revokes the EMAIL_OTP only with the other credential’s session', async () => {
    const wallet = await newWallet();
    const otpSession = await login(wallet);
    const sub = `google-user-${Date.now()}`;
    const createBody = { type: 'OAUTH', accountId: wallet.accountId, oidcToken: await idToken({ sub, email: wallet.email }) };
    const { first, second } = await signedCall('POST', '/auth/credentials', createBody, otpSession.privHex);
    expect(first.body.type).toBe('OAUTH');
    expect(JSON.parse(first.body.payloadToSign).type).toBe('ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS');
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ type: 'OAUTH', accountId: wallet.accountId, nickname: wallet.email });
    const oauthId = second.body.id as string;
    expect(
      (await api.call('GET', `/auth/credentials?accountId=${wallet.accountId}`, { auth: platformA })).body.data.map(
        (credential: { type: string }) => credential.type,
      ),
    ).toEqual(['EMAIL_OTP', 'OAUTH']);

    const client = genKeypair();
    const verify = (oidcToken: string, clientPublicKey = client.pubHex) =>
      api.call('POST', `/auth/credentials/${oauthId}/verify`, { auth: platformA, body: { type: 'OAUTH', oidcToken, clientPublicKey } });
    const refusals = [
      await verify(await idToken({ sub, nonce: 'not-the-nonce' })),
      await verify(await idToken({ sub: 'someone-else', nonce: oidcNonce(client.pubHex) })),
      await verify(await idToken({ sub, nonce: oidcNonce(client.pubHex), iatOffsetSeconds: -120 })),
      await verify(await idToken({ sub, nonce: oidcNonce(client.pubHex) }, (await generateKeyPair('ES256')).privateKey)),
    ];
    expect(refusals.map((reply) => [reply.status, reply.body.code])).toEqual(Array(4).fill([401, 'UNAUTHORIZED']));
    const session = await verify(await idToken({ sub, nonce: oidcNonce(client.pubHex) }));
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      id: expect.stringMatching(/^Session:/),
      type: 'OAUTH',
      encryptedSessionSigningKey: expect.any(String),
    });
    const oauthKey = await decryptSessionKey(session.body.encryptedSessionSigningKey, client.privHex);
    secrets.push(oauthKey);

    // The EMAIL_OTP credential cannot be revoked by its own session, only by the OAUTH one.
    const revoke = await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, { auth: platformA });
    expect(revoke.status).toBe(202);
    const bySelf = await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, {
      auth: platformA,
      headers: signedHeaders(otpSession.privHex, revoke.body),
    });
    expect([bySelf.status, bySelf.body.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    const byOther = await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, {
      auth: platformA,
      headers: signedHeaders(oauthKey, revoke.body),
    });
    expect(byOther.status).toBe(204);
    const sessions = (await api.call('GET', `/auth/sessions?accountId=${wallet.accountId}`, { auth: platformA })).body.data;
    expect(sessions.map((item: { id: string }) => item.id)).toEqual([session.body.id]);
    expect((await api.call('DELETE', `/auth/credentials/${oauthId}`, { auth: platformA })).status).toBe(400);

    // An EMAIL_OTP credential again, signed by the OAUTH session: the OTP mail goes out on the retry.
    const { second: readded } = await signedCall('POST', '/auth/credentials', { type: 'EMAIL_OTP', accountId: wallet.accountId }, oauthKey);
    expect(readded.status).toBe(201);
    expect(readded.body).toMatchObject({ type: 'EMAIL_OTP', nickname: wallet.email, otpEncryptionTargetBundle: expect.any(String) });
  });
});

describe('PASSKEY credentials', () => {
  it('registers a passkey against the platform’s challenge with the signed retry, and logs in with an assertion over the Grid challenge', async () => {
    const wallet = await newWallet();
    const otpSession = await login(wallet);
    const registrationChallenge = randomBytes(32).toString('base64url');
    const { passkey, attestation } = createPasskey({
      rpId: 'localhost',
      origin: 'http://localhost:3000',
      challenge: registrationChallenge,
    });
    const body = { type: 'PASSKEY', accountId: wallet.accountId, nickname: 'Work phone', challenge: registrationChallenge, attestation };
    const wrongChallenge = await api.call('POST', '/auth/credentials', {
      auth: platformA,
      body: { ...body, challenge: randomBytes(32).toString('base64url') },
    });
    expect([wrongChallenge.status, wrongChallenge.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const { first, second } = await signedCall('POST', '/auth/credentials', body, otpSession.privHex);
    expect(JSON.parse(first.body.payloadToSign).type).toBe('ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2');
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ type: 'PASSKEY', nickname: 'Work phone', credentialId: passkey.credentialId });
    const duplicate = await api.call('POST', '/auth/credentials', { auth: platformA, body });
    expect([duplicate.status, duplicate.body.code]).toEqual([400, 'PASSKEY_CREDENTIAL_ALREADY_EXISTS']);

    const client = genKeypair();
    const challenge = await api.call('POST', `/auth/credentials/${second.body.id}/challenge`, {
      auth: platformA,
      body: { clientPublicKey: client.pubHex },
    });
    expect(challenge.status).toBe(200);
    expect(challenge.body).toMatchObject({
      type: 'PASSKEY',
      credentialId: passkey.credentialId,
      challenge: expect.stringMatching(/^[0-9a-f]{64}$/),
      requestId: expect.stringMatching(/^Request:/),
    });
    const verify = (assertion: unknown, headers: Record<string, string>) =>
      api.call('POST', `/auth/credentials/${second.body.id}/verify`, { auth: platformA, body: { type: 'PASSKEY', assertion }, headers });
    const noRequestId = await verify(assertPasskey(passkey, challenge.body.challenge), {});
    expect([noRequestId.status, noRequestId.body.code]).toEqual([401, 'REQUEST_ID_MISSING']);
    const wrongSignature = await verify(assertPasskey(passkey, 'f'.repeat(64)), { 'Request-Id': challenge.body.requestId });
    expect([wrongSignature.status, wrongSignature.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const session = await verify(assertPasskey(passkey, challenge.body.challenge), { 'Request-Id': challenge.body.requestId });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ type: 'PASSKEY', encryptedSessionSigningKey: expect.any(String) });
    const reused = await verify(assertPasskey(passkey, challenge.body.challenge), { 'Request-Id': challenge.body.requestId });
    expect([reused.status, reused.body.code]).toEqual([401, 'INVALID_SIGNATURE']);
    const key = await decryptSessionKey(session.body.encryptedSessionSigningKey, client.privHex);
    secrets.push(key);
    const { second: patched } = await signedCall('PATCH', `/internal-accounts/${wallet.accountId}`, { privateEnabled: true }, key);
    expect(patched.status).toBe(200);
  });
});

describe('customer email change', () => {
  it('takes the wallet’s signed retry, and the EMAIL_OTP credential follows the new email', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const other = await api.call('PATCH', `/customers/${wallet.customerId}`, {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', fullName: 'Wanda Renamed' },
    });
    expect(other.status).toBe(200);
    const email = `moved.${Date.now()}@example.com`;
    const body = { customerType: 'INDIVIDUAL', email };
    const first = await api.call('PATCH', `/customers/${wallet.customerId}`, { auth: platformA, body });
    expect(first.status).toBe(202);
    expect(JSON.parse(first.body.payloadToSign)).toMatchObject({
      type: 'ACTIVITY_TYPE_UPDATE_USER_EMAIL',
      parameters: { userEmail: email },
    });
    const unchanged = await api.call('GET', `/customers/${wallet.customerId}`, { auth: platformA });
    expect(unchanged.body.email).toBe(wallet.email);
    const mismatch = await api.call('PATCH', `/customers/${wallet.customerId}`, {
      auth: platformA,
      body: { ...body, email: 'other@example.com' },
      headers: signedHeaders(session.privHex, first.body),
    });
    expect([mismatch.status, mismatch.body.code]).toEqual([401, 'WALLET_SIGNATURE_BODY_MISMATCH']);
    const done = await api.call('PATCH', `/customers/${wallet.customerId}`, {
      auth: platformA,
      body,
      headers: signedHeaders(session.privHex, first.body),
    });
    expect(done.status).toBe(200);
    expect(done.body.email).toBe(email);
    // One operation: by the 200 the EMAIL_OTP credential has the new email too.
    expect(await credentialEmails(wallet)).toEqual([email]);
  });

  it('answers 409 EMAIL_OTP_EMAIL_ALREADY_EXISTS for an address another wallet’s EMAIL_OTP has (case ignored), before anything is signed', async () => {
    const [wallet, other] = [await newWallet(), await newWallet()];
    for (const email of [other.email, other.email.toUpperCase()]) {
      const refused = await api.call('PATCH', `/customers/${wallet.customerId}`, {
        auth: platformA,
        body: { customerType: 'INDIVIDUAL', email },
      });
      expect([refused.status, refused.body.code]).toEqual([409, 'EMAIL_OTP_EMAIL_ALREADY_EXISTS']);
    }
    expect((await api.call('GET', `/customers/${wallet.customerId}`, { auth: platformA })).body.email).toBe(wallet.email);
    expect(await credentialEmails(wallet)).toEqual([wallet.email]);
  });

  it('answers 409 EMAIL_OTP_CREDENTIAL_SET_CHANGED when the EMAIL_OTP credentials changed between the legs, changing nothing; with none left the change needs no signature', async () => {
    const wallet = await newWallet();
    const path = `/customers/${wallet.customerId}`;
    const body = { customerType: 'INDIVIDUAL', email: `set.${Date.now()}@example.com` };
    const first = await api.call('PATCH', path, { auth: platformA, body });
    expect(first.status).toBe(202);
    // Meanwhile an OAUTH credential is added and the EMAIL_OTP revoked (the sandbox values stand in for the wallet's keys).
    const oauth = { type: 'OAUTH', accountId: wallet.accountId, oidcToken: sandboxOidcToken({ sub: `set-${Date.now()}` }) };
    const added = await api.call('POST', '/auth/credentials', { auth: platformA, body: oauth });
    expect(
      (await api.call('POST', '/auth/credentials', { auth: platformA, body: oauth, headers: sandboxHeaders(added.body) })).status,
    ).toBe(201);
    const revoke = await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, { auth: platformA });
    expect(
      (await api.call('DELETE', `/auth/credentials/${wallet.credentialId}`, { auth: platformA, headers: sandboxHeaders(revoke.body) }))
        .status,
    ).toBe(204);

    const changed = await api.call('PATCH', path, { auth: platformA, body, headers: sandboxHeaders(first.body) });
    expect([changed.status, changed.body.code]).toEqual([409, 'EMAIL_OTP_CREDENTIAL_SET_CHANGED']);
    expect((await api.call('GET', path, { auth: platformA })).body.email).toBe(wallet.email);
    const direct = await api.call('PATCH', path, { auth: platformA, body });
    expect([direct.status, direct.body.email]).toEqual([200, body.email]);
  });
});

describe('the signed retry under one Idempotency-Key', () => {
  it('leg 1 (the 202 challenge) is not the key’s answer: leg 2 under the same key runs the operation, and repeats of leg 2 replay its answer', async () => {
    const wallet = await newWallet();
    const oauth = { type: 'OAUTH', accountId: wallet.accountId, oidcToken: sandboxOidcToken({ sub: `keyed-${Date.now()}` }) };
    const key = { 'idempotency-key': `signed-retry-${Date.now()}` };
    const first = await api.call('POST', '/auth/credentials', { auth: platformA, body: oauth, headers: key });
    expect([first.status, typeof first.body.payloadToSign]).toEqual([202, 'string']);
    const second = await api.call('POST', '/auth/credentials', {
      auth: platformA,
      body: oauth,
      headers: { ...key, ...sandboxHeaders(first.body) },
    });
    expect([second.status, second.body.type, second.headers.get('idempotency-replayed')]).toEqual([201, 'OAUTH', null]);
    const again = await api.call('POST', '/auth/credentials', {
      auth: platformA,
      body: oauth,
      headers: { ...key, ...sandboxHeaders(first.body) },
    });
    expect([again.status, again.body.id, again.headers.get('idempotency-replayed')]).toEqual([201, second.body.id, 'true']);
    const types = (
      (await api.call('GET', `/auth/credentials?accountId=${wallet.accountId}`, { auth: platformA })).body.data as { type: string }[]
    ).map((row) => row.type);
    expect(types.sort()).toEqual(['EMAIL_OTP', 'OAUTH']);
  });
});

describe('a signed change refused by the service that applies it', () => {
  it('gives the signed request back, so the same signed retry completes once the refusal is gone (and only once)', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const holder = await newCustomer(platformA);
    const address = `$held.${Date.now()}@example.com`;
    expect(
      (
        await api.call('PATCH', `/customers/${holder.customerId}`, {
          auth: platformA,
          body: { customerType: 'INDIVIDUAL', umaAddress: address },
        })
      ).status,
    ).toBe(200);
    const body = { customerType: 'INDIVIDUAL', email: `kept.${Date.now()}@example.com`, umaAddress: address };
    const path = `/customers/${wallet.customerId}`;
    const first = await api.call('PATCH', path, { auth: platformA, body });
    expect(first.status).toBe(202);
    const headers = signedHeaders(session.privHex, first.body);
    const refused = await api.call('PATCH', path, { auth: platformA, body, headers });
    expect([refused.status, refused.body.code]).toEqual([409, 'UMA_ADDRESS_EXISTS']);
    expect((await api.call('GET', path, { auth: platformA })).body.email).toBe(wallet.email);
    // Leg 2 had renamed the EMAIL_OTP credential; the refusal gave it its old address back.
    expect(await credentialEmails(wallet)).toEqual([wallet.email]);

    expect(
      (
        await api.call('PATCH', `/customers/${holder.customerId}`, {
          auth: platformA,
          body: { customerType: 'INDIVIDUAL', umaAddress: `$moved.${Date.now()}@example.com` },
        })
      ).status,
    ).toBe(200);
    const done = await api.call('PATCH', path, { auth: platformA, body, headers });
    expect([done.status, done.body.email, done.body.umaAddress]).toEqual([200, body.email, address]);
    expect(await credentialEmails(wallet)).toEqual([body.email]);
    const reused = await api.call('PATCH', path, { auth: platformA, body, headers });
    expect([reused.status, reused.body.code]).toEqual([401, 'INVALID_SIGNATURE']);
  });
});

describe('a card funded by a wallet', () => {
  it('is issued and changes only with the wallet’s signed retry', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const { first: issue, second: created } = await signedCall(
      'POST',
      '/cards',
      { cardholderId: wallet.customerId, platformCardId: `wallet-card-${customers}`, form: 'VIRTUAL', fundingSources: [wallet.accountId] },
      session.privHex,
    );
    expect(issue.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });
    expect(created.status).toBe(201);
    expect(created.body.currency).toBe('USDB');
    await eventually(
      async () => (await api.call('GET', `/cards/${created.body.id}`, { auth: platformA })).body.state,
      (state) => state === 'ACTIVE',
    );
    const { first, second } = await signedCall('PATCH', `/cards/${created.body.id}`, { state: 'FROZEN' }, session.privHex);
    expect(first.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });
    expect(second.status).toBe(200);
    expect(second.body.state).toBe('FROZEN');
    const unsigned = await api.call('PATCH', `/cards/${created.body.id}`, {
      auth: platformA,
      body: { state: 'ACTIVE' },
      headers: { 'Request-Id': first.body.requestId },
    });
    expect([unsigned.status, unsigned.body.code]).toEqual([401, 'WALLET_SIGNATURE_MISSING']);
  });
});

describe('a quote from a wallet', () => {
  it('carries the wallet payloadToSign and executes only with a stamp of an active session over it', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    expect(
      (await api.call('POST', `/sandbox/internal-accounts/${wallet.accountId}/fund`, { auth: platformA, body: { amount: 100_000_000 } }))
        .status,
    ).toBe(200);
    const external = await api.call('POST', '/customers/external-accounts', {
      auth: platformA,
      body: {
        customerId: wallet.customerId,
        currency: 'USD',
        accountInfo: {
          accountType: 'USD_ACCOUNT',
          accountNumber: '000777000001',
          routingNumber: '011000015',
          beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Wanda Wallet' },
        },
      },
    });
    expect(external.status).toBe(201);
    const quoteBody = {
      source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: external.body.id },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 5_000_000,
    };
    const immediate = await api.call('POST', '/quotes', { auth: platformA, body: { ...quoteBody, immediatelyExecute: true } });
    expect(immediate.status).toBe(400);
    expect(immediate.body.message).toMatch(/Grid-Wallet-Signature/);
    const quote = await api.call('POST', '/quotes', { auth: platformA, body: quoteBody });
    expect(quote.status).toBe(201);
    const info = quote.body.paymentInstructions[0].accountOrWalletInfo;
    expect(info).toEqual({ accountType: 'EMBEDDED_WALLET', payloadToSign: expect.any(String) });
    const execute = (headers: Record<string, string>) => api.call('POST', `/quotes/${quote.body.id}/execute`, { auth: platformA, headers });
    const refusals = [
      await execute({}),
      await execute({ 'Grid-Wallet-Signature': 'not-a-stamp!' }),
      await execute({ 'Grid-Wallet-Signature': stamp(genKeypair().privHex, info.payloadToSign) }),
      await execute({ 'Grid-Wallet-Signature': stamp(session.privHex, `${info.payloadToSign} `) }),
    ];
    expect(refusals.map((reply) => [reply.status, reply.body.code])).toEqual([
      [401, 'WALLET_SIGNATURE_MISSING'],
      [401, 'WALLET_SIGNATURE_MALFORMED'],
      [401, 'WALLET_SIGNATURE_INVALID'],
      [401, 'WALLET_SIGNATURE_INVALID'],
    ]);
    const [untouched] = await walletAccounts(platformA, wallet.customerId);
    expect(untouched.balance.amount).toBe(100_000_000);
    const executed = await execute({ 'Grid-Wallet-Signature': stamp(session.privHex, info.payloadToSign) });
    expect(executed.status).toBe(200);
    expect(executed.body.id).toBe(quote.body.id);
    const [after] = await walletAccounts(platformA, wallet.customerId);
    expect(after.balance.amount).toBe(100_000_000 - Number(quote.body.totalSendingAmount));
  });
});

describe('the reference’s sandbox values (section (f))', () => {
  it('takes sandbox-valid-signature for a stamp on a sandbox platform, still bound to leg 1’s Request-Id and body, and used once', async () => {
    const wallet = await newWallet();
    const path = `/internal-accounts/${wallet.accountId}`;
    const first = await api.call('PATCH', path, { auth: platformA, body: { privateEnabled: true } });
    expect(first.status).toBe(202);
    const codeOf = async (body: unknown, headers: Record<string, string>) => {
      const reply = await api.call('PATCH', path, { auth: platformA, body, headers });
      return [reply.status, reply.body.code];
    };
    expect(await codeOf({ privateEnabled: true }, { 'Grid-Wallet-Signature': SANDBOX_SIGNATURE })).toEqual([401, 'REQUEST_ID_MISSING']);
    expect(await codeOf({ privateEnabled: true }, sandboxHeaders({ requestId: 'Request:00000000-0000-4000-8000-000000000000' }))).toEqual([
      401,
      'INVALID_SIGNATURE',
    ]);
    expect(await codeOf({ privateEnabled: false }, sandboxHeaders(first.body))).toEqual([401, 'WALLET_SIGNATURE_BODY_MISMATCH']);
    const done = await api.call('PATCH', path, { auth: platformA, body: { privateEnabled: true }, headers: sandboxHeaders(first.body) });
    expect([done.status, done.body.privateEnabled]).toEqual([200, true]);
    expect(await codeOf({ privateEnabled: true }, sandboxHeaders(first.body))).toEqual([401, 'INVALID_SIGNATURE']);

    // The EMAIL_OTP verify's second leg too: the TEK named in the bundle becomes the session key.
    const bundle = await challenge(wallet);
    const tek = genKeypair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, '000000') };
    const verifyPath = `/auth/credentials/${wallet.credentialId}/verify`;
    const leg1 = await api.call('POST', verifyPath, { auth: platformA, body });
    const session = await api.call('POST', verifyPath, { auth: platformA, body, headers: sandboxHeaders(leg1.body) });
    expect([session.status, session.body.type]).toEqual([200, 'EMAIL_OTP']);
    const { second: signedByTek } = await signedCall('PATCH', path, { privateEnabled: false }, tek.privHex);
    expect(signedByTek.status).toBe(200);
  });

  it('refuses sandbox-valid-signature on a production platform with the 401 a malformed stamp gets', async () => {
    const wallet = await newWallet(production);
    expect((await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: production, body: {} })).status).toBe(503);
    const path = `/internal-accounts/${wallet.accountId}`;
    const first = await api.call('PATCH', path, { auth: production, body: { privateEnabled: true } });
    expect(first.status).toBe(202);
    const refused = await api.call('PATCH', path, {
      auth: production,
      body: { privateEnabled: true },
      headers: sandboxHeaders(first.body),
    });
    expect([refused.status, refused.body.code]).toEqual([401, 'WALLET_SIGNATURE_MALFORMED']);
    expect((await walletAccounts(production, wallet.customerId))[0].privateEnabled).toBe(false);
  });

  it('executes a wallet quote with sandbox-valid-signature on a sandbox platform only', async () => {
    const quoteFrom = async (auth: Credentials, wallet: Wallet) => {
      const [usd] = (await api.call('GET', `/customers/internal-accounts?customerId=${wallet.customerId}&type=INTERNAL_FIAT`, { auth }))
        .body.data;
      const quote = await api.call('POST', '/quotes', {
        auth,
        body: {
          source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
          destination: { destinationType: 'ACCOUNT', accountId: usd.id },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000_000,
        },
      });
      expect([quote.status, quote.body.paymentInstructions?.[0]?.accountOrWalletInfo?.accountType]).toEqual([201, 'EMBEDDED_WALLET']);
      return quote.body.id as string;
    };
    const sandboxWallet = await newWallet();
    expect(
      (
        await api.call('POST', `/sandbox/internal-accounts/${sandboxWallet.accountId}/fund`, {
          auth: platformA,
          body: { amount: 10_000_000 },
        })
      ).status,
    ).toBe(200);
    const executed = await api.call('POST', `/quotes/${await quoteFrom(platformA, sandboxWallet)}/execute`, {
      auth: platformA,
      headers: { 'Grid-Wallet-Signature': SANDBOX_SIGNATURE },
    });
    expect(executed.status).toBe(200);

    const productionWallet = await newWallet(production);
    const refused = await api.call('POST', `/quotes/${await quoteFrom(production, productionWallet)}/execute`, {
      auth: production,
      headers: { 'Grid-Wallet-Signature': SANDBOX_SIGNATURE },
    });
    expect([refused.status, refused.body.code]).toEqual([401, 'WALLET_SIGNATURE_MALFORMED']);
  });

  it('skips WebAuthn for sandbox-valid-passkey-signature on a sandbox platform (the challenge’s Request-Id still required, once), and verifies it for real in production', async () => {
    const wallet = await newWallet();
    const registrationChallenge = randomBytes(32).toString('base64url');
    const { passkey, attestation } = createPasskey({
      rpId: 'localhost',
      origin: 'http://localhost:3000',
      challenge: registrationChallenge,
    });
    const body = { type: 'PASSKEY', accountId: wallet.accountId, nickname: 'Sandbox key', challenge: registrationChallenge, attestation };
    const first = await api.call('POST', '/auth/credentials', { auth: platformA, body });
    const registered = await api.call('POST', '/auth/credentials', { auth: platformA, body, headers: sandboxHeaders(first.body) });
    expect(registered.status).toBe(201);
    const passkeyId = registered.body.id as string;

    const client = genKeypair();
    const sandboxAssertion = {
      credentialId: passkey.credentialId,
      clientDataJson: 'e30',
      authenticatorData: 'AA',
      signature: SANDBOX_PASSKEY_SIGNATURE,
    };
    const verify = (auth: Credentials, id: string, assertion: unknown, headers: Record<string, string>) =>
      api.call('POST', `/auth/credentials/${id}/verify`, { auth, body: { type: 'PASSKEY', assertion }, headers });
    const challenged = await api.call('POST', `/auth/credentials/${passkeyId}/challenge`, {
      auth: platformA,
      body: { clientPublicKey: client.pubHex },
    });
    expect(challenged.status).toBe(200);
    const noRequestId = await verify(platformA, passkeyId, sandboxAssertion, {});
    expect([noRequestId.status, noRequestId.body.code]).toEqual([401, 'REQUEST_ID_MISSING']);
    const otherPasskey = await verify(
      platformA,
      passkeyId,
      { ...sandboxAssertion, credentialId: 'c29tZW9uZS1lbHNl' },
      { 'Request-Id': challenged.body.requestId },
    );
    expect([otherPasskey.status, otherPasskey.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const session = await verify(platformA, passkeyId, sandboxAssertion, { 'Request-Id': challenged.body.requestId });
    expect([session.status, session.body.type]).toEqual([200, 'PASSKEY']);
    const key = await decryptSessionKey(session.body.encryptedSessionSigningKey, client.privHex);
    secrets.push(key);
    expect((await signedCall('PATCH', `/internal-accounts/${wallet.accountId}`, { privateEnabled: true }, key)).second.status).toBe(200);
    const reused = await verify(platformA, passkeyId, sandboxAssertion, { 'Request-Id': challenged.body.requestId });
    expect([reused.status, reused.body.code]).toEqual([401, 'INVALID_SIGNATURE']);

    // Production: no session can add a passkey there (no mail transport), so the same passkey is stored directly.
    const live = await newWallet(production);
    const livePasskeyId = `AuthMethod:${randomUUID()}`;
    await pg.query(
      `INSERT INTO accounts.auth_credentials (id, platform_id, account_id, type, nickname, credential_id, identity, created_at, updated_at)
       SELECT $1, w.platform_id, w.account_id, 'PASSKEY', 'Live key', c.credential_id, c.identity - 'registrationChallenge', now(), now()
       FROM accounts.wallet_keys w, accounts.auth_credentials c WHERE w.account_id = $2 AND c.id = $3`,
      [livePasskeyId, live.accountId, passkeyId],
    );
    const liveChallenge = await api.call('POST', `/auth/credentials/${livePasskeyId}/challenge`, {
      auth: production,
      body: { clientPublicKey: client.pubHex },
    });
    expect(liveChallenge.status).toBe(200);
    const refused = await verify(production, livePasskeyId, sandboxAssertion, { 'Request-Id': liveChallenge.body.requestId });
    expect([refused.status, refused.body.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await api.call('GET', `/auth/sessions?accountId=${live.accountId}`, { auth: production })).body.data).toEqual([]);
  });

  it('takes a dummy-signed OIDC token of a sandbox issuer on a sandbox platform when its claims hold, and refuses it in production', async () => {
    const wallet = await newWallet();
    const sub = `sandbox-user-${Date.now()}`;
    const body = { type: 'OAUTH', accountId: wallet.accountId, oidcToken: sandboxOidcToken({ sub }) };
    const first = await api.call('POST', '/auth/credentials', { auth: platformA, body });
    expect(first.status).toBe(202);
    const created = await api.call('POST', '/auth/credentials', { auth: platformA, body, headers: sandboxHeaders(first.body) });
    expect([created.status, created.body.type]).toEqual([201, 'OAUTH']);
    const client = genKeypair();
    const verify = (auth: Credentials, id: string, oidcToken: string) =>
      api.call('POST', `/auth/credentials/${id}/verify`, { auth, body: { type: 'OAUTH', oidcToken, clientPublicKey: client.pubHex } });
    const nonce = oidcNonce(client.pubHex);
    const refusals = [
      await verify(platformA, created.body.id, sandboxOidcToken({ sub, nonce, iatOffsetSeconds: -120 })),
      await verify(platformA, created.body.id, sandboxOidcToken({ sub, nonce: 'not-the-nonce' })),
      await verify(platformA, created.body.id, sandboxOidcToken({ sub, nonce, iss: 'https://issuer.example' })),
      await verify(platformA, created.body.id, sandboxOidcToken({ sub: 'someone-else', nonce })),
    ];
    expect(refusals.map((reply) => [reply.status, reply.body.code])).toEqual(Array(4).fill([401, 'UNAUTHORIZED']));
    const session = await verify(platformA, created.body.id, sandboxOidcToken({ sub, nonce }));
    expect([session.status, session.body.type]).toEqual([200, 'OAUTH']);

    const live = await newWallet(production);
    const createLive = () => api.call('POST', '/auth/credentials', { auth: production, body: { ...body, accountId: live.accountId } });
    // A production platform names the OAuth client ids its tokens must be for (decision 0021); until then OAUTH is a 400.
    const unconfigured = await createLive();
    expect([unconfigured.status, unconfigured.body.code, unconfigured.body.message]).toEqual([
      400,
      'INVALID_INPUT',
      expect.stringMatching(/oidcAudiences/),
    ]);
    expect(
      (await api.call('PATCH', '/config', { auth: production, body: { embeddedWalletConfig: { oidcAudiences: ['sandbox-client'] } } }))
        .status,
    ).toBe(200);
    const liveCreate = await eventually(createLive, (reply) => reply.status !== 400);
    expect([liveCreate.status, liveCreate.body.code]).toEqual([401, 'UNAUTHORIZED']);
    const liveOauthId = `AuthMethod:${randomUUID()}`;
    await pg.query(
      `INSERT INTO accounts.auth_credentials (id, platform_id, account_id, type, nickname, identity, created_at, updated_at)
       SELECT $1, platform_id, account_id, 'OAUTH', 'Live OAuth', $3, now(), now() FROM accounts.wallet_keys WHERE account_id = $2`,
      [liveOauthId, live.accountId, JSON.stringify({ iss: 'https://accounts.google.com', aud: 'sandbox-client', sub })],
    );
    const liveVerify = await verify(production, liveOauthId, sandboxOidcToken({ sub, nonce }));
    expect([liveVerify.status, liveVerify.body.code]).toEqual([401, 'UNAUTHORIZED']);
  });
});

describe('repeated failures: 429 RATE_LIMITED with Retry-After', () => {
  const expectLocked = (reply: Reply) => {
    expect([reply.status, reply.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  };
  /** A second credential added with the sandbox shortcuts, so each lock is tested on a wallet of its own. */
  const addCredential = async (body: Record<string, unknown>): Promise<string> => {
    const first = await api.call('POST', '/auth/credentials', { auth: platformA, body });
    const created = await api.call('POST', '/auth/credentials', { auth: platformA, body, headers: sandboxHeaders(first.body) });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  it('locks a credential’s challenge after ten in ten minutes', async () => {
    const wallet = await newWallet();
    const challengeOnce = () => api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: platformA, body: {} });
    for (let attempt = 0; attempt < 10; attempt += 1) expect((await challengeOnce()).status).toBe(200);
    expectLocked(await challengeOnce());
  });

  it('locks an OAUTH credential’s verify after five wrong tokens, even for a right one', async () => {
    const wallet = await newWallet();
    const sub = `locked-user-${Date.now()}`;
    const oauthId = await addCredential({ type: 'OAUTH', accountId: wallet.accountId, oidcToken: sandboxOidcToken({ sub }) });
    const client = genKeypair();
    const verify = (oidcToken: string) =>
      api.call('POST', `/auth/credentials/${oauthId}/verify`, {
        auth: platformA,
        body: { type: 'OAUTH', oidcToken, clientPublicKey: client.pubHex },
      });
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await verify(sandboxOidcToken({ sub, nonce: 'not-the-nonce' }))).status).toBe(401);
    expectLocked(await verify(sandboxOidcToken({ sub, nonce: oidcNonce(client.pubHex) })));
  });

  it('locks a PASSKEY credential’s verify after five assertions that do not verify, even for a right one', async () => {
    const wallet = await newWallet();
    const registrationChallenge = randomBytes(32).toString('base64url');
    const { passkey, attestation } = createPasskey({
      rpId: 'localhost',
      origin: 'http://localhost:3000',
      challenge: registrationChallenge,
    });
    const passkeyId = await addCredential({
      type: 'PASSKEY',
      accountId: wallet.accountId,
      nickname: 'Locked key',
      challenge: registrationChallenge,
      attestation,
    });
    const challenged = await api.call('POST', `/auth/credentials/${passkeyId}/challenge`, {
      auth: platformA,
      body: { clientPublicKey: genKeypair().pubHex },
    });
    const verify = (challengeHex: string) =>
      api.call('POST', `/auth/credentials/${passkeyId}/verify`, {
        auth: platformA,
        body: { type: 'PASSKEY', assertion: assertPasskey(passkey, challengeHex) },
        headers: { 'Request-Id': challenged.body.requestId },
      });
    for (let attempt = 0; attempt < 5; attempt += 1) expect((await verify('f'.repeat(64))).body.code).toBe('UNAUTHORIZED');
    expectLocked(await verify(challenged.body.challenge));
  });

  it('locks a wallet’s signed retries after five stamps that do not verify, even for a right one; protocol mistakes do not count', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const path = `/internal-accounts/${wallet.accountId}`;
    const body = { privateEnabled: true };
    const first = await api.call('PATCH', path, { auth: platformA, body });
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const mistake = await api.call('PATCH', path, {
        auth: platformA,
        body,
        headers: {
          'Request-Id': 'Request:00000000-0000-4000-8000-000000000000',
          'Grid-Wallet-Signature': stamp(session.privHex, first.body.payloadToSign),
        },
      });
      expect(mistake.body.code).toBe('INVALID_SIGNATURE');
    }
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const wrong = await api.call('PATCH', path, { auth: platformA, body, headers: signedHeaders(genKeypair().privHex, first.body) });
      expect(wrong.body.code).toBe('WALLET_SIGNATURE_INVALID');
    }
    expectLocked(await api.call('PATCH', path, { auth: platformA, body, headers: signedHeaders(session.privHex, first.body) }));
    expect((await walletAccounts(platformA, wallet.customerId))[0].privateEnabled).toBe(false);
  });

  it('locks a wallet quote’s execution after five stamps that do not verify, even for a right one', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    expect(
      (await api.call('POST', `/sandbox/internal-accounts/${wallet.accountId}/fund`, { auth: platformA, body: { amount: 10_000_000 } }))
        .status,
    ).toBe(200);
    const [usd] = (
      await api.call('GET', `/customers/internal-accounts?customerId=${wallet.customerId}&type=INTERNAL_FIAT`, { auth: platformA })
    ).body.data;
    const quote = await api.call('POST', '/quotes', {
      auth: platformA,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: usd.id },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000_000,
      },
    });
    const payloadToSign = quote.body.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string;
    const execute = (privHex: string) =>
      api.call('POST', `/quotes/${quote.body.id}/execute`, {
        auth: platformA,
        headers: { 'Grid-Wallet-Signature': stamp(privHex, payloadToSign) },
      });
    for (let attempt = 0; attempt < 5; attempt += 1)
      expect((await execute(genKeypair().privHex)).body.code).toBe('WALLET_SIGNATURE_INVALID');
    expectLocked(await execute(session.privHex));
    expect((await walletAccounts(platformA, wallet.customerId))[0].balance.amount).toBe(10_000_000);
  });
});

describe('secrets', () => {
  it('never puts an OTP, a session key or a mnemonic in an event store or a log', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    const { rows: tables } = await pg.query<{ table_schema: string }>(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'events'",
    );
    expect(tables.length).toBeGreaterThan(3);
    for (const { table_schema: schema } of tables) {
      const { rows } = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${schema}.events WHERE data::text LIKE ANY($1) OR metadata::text LIKE ANY($1)`,
        [secrets.map((secret) => `%${secret}%`)],
      );
      expect([schema, rows[0]!.n]).toEqual([schema, 0]);
    }
    const logs = Object.values(stack.logs).flat().join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logs.includes(secret)).toBe(false);
  });
});
