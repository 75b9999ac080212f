// Production Embedded Wallet mail and export signing end to end through the gateway: the accounts
// service's SMTP settings point at a real SMTP server on loopback (smtp-server), a production
// platform's EMAIL_OTP challenge mails the code as the platform brands it, the code read from the
// received mail logs in, and the session's export carries a dataSignature over its data by the
// configured quorum key that a client pinning that key verifies. A relay that refuses answers 503
// with the reason, counted on /metrics and named on /health; sandbox platforms keep the mailbox.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { startTestSmtpServer, type TestSmtpServer, eventually } from '@corridor/testing';
import { createApi, type Credentials } from './support/api';
import { type Stack, startStack } from './support/stack';
import { decryptExport, encryptOtp, genKeypair, signedHeaders } from './support/wallet-client';

const RELAY_PASSWORD = 'relay-password-e2e';
const refusedEmail = `refused.${Date.now()}@example.com`;

/** The quorum key the deployment signs with, and the public key a client pins (uncompressed SEC1 hex). */
const quorum = (() => {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const hex = (value: string | undefined) => Buffer.from(value!, 'base64url').toString('hex');
  return { privateKeyHex: hex(jwk.d), publicKeyHex: `04${hex(jwk.x)}${hex(jwk.y)}` };
})();

let relay: TestSmtpServer;
let stack: Stack;
let api: ReturnType<typeof createApi>;
let production: Credentials;
let sandbox: Credentials;

/** Every secret a test saw: none may appear in a log. */
const secrets: string[] = [RELAY_PASSWORD, quorum.privateKeyHex];

beforeAll(async () => {
  relay = await startTestSmtpServer({
    credentials: { user: 'corridor', pass: RELAY_PASSWORD },
    refuseRecipient: (address) => address === refusedEmail,
  });
  stack = await startStack({
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(relay.port),
      SMTP_USER: 'corridor',
      SMTP_PASSWORD: RELAY_PASSWORD,
      // The loopback relay has no certificate; a relay across a network keeps the default (STARTTLS required).
      SMTP_REQUIRE_TLS: 'false',
      MAIL_FROM: 'otp@corridor.test',
      EMBEDDED_WALLET_EXPORT_SIGNING_KEY: quorum.privateKeyHex,
    },
  });
  api = createApi(stack, 'embedded-wallets-mail');
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
  sandbox = (await stack.createPlatform()).token as Credentials;
  const embeddedWalletConfig = {
    appName: 'Live Wallet',
    otpLength: 8,
    sendFromEmailAddress: 'noreply@live-wallet.test',
    sendFromEmailSenderName: 'Live Wallet Notifications',
    replyToEmailAddress: 'support@live-wallet.test',
    logoUrl: 'https://live-wallet.test/logo.png',
  };
  expect((await api.call('PATCH', '/config', { auth: production, body: { embeddedWalletConfig } })).status).toBe(200);
  expect((await api.call('PATCH', '/config', { auth: sandbox, body: { embeddedWalletConfig: { appName: 'Play Wallet' } } })).status).toBe(
    200,
  );
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await stack?.close();
  await relay?.close();
});

let customers = 0;
const newWallet = async (auth: Credentials, email = `live.${(customers += 1)}.${Date.now()}@example.com`) => {
  const created = await api.call('POST', '/customers', {
    auth,
    body: { customerType: 'INDIVIDUAL', fullName: `Lena ${customers}`, email, currencies: ['USD'] },
  });
  expect(created.status).toBe(201);
  const listed = async () =>
    (await api.call('GET', `/customers/internal-accounts?customerId=${created.body.id}&type=EMBEDDED_WALLET`, { auth })).body.data as {
      id: string;
    }[];
  const [account] = await eventually(listed, (list) => list.length === 1, 30_000);
  const credentials = await api.call('GET', `/auth/credentials?accountId=${account!.id}`, { auth });
  return { accountId: account!.id, credentialId: credentials.body.data[0].id as string, email };
};

/** A bundle's dataSignature checked as a client does it: ECDSA-P256-SHA256 over the data bytes, by the key it pinned. */
const signedByQuorum = (bundle: string): boolean => {
  const outer = JSON.parse(bundle) as { data: string; dataSignature: string; enclaveQuorumPublic: string };
  if (outer.enclaveQuorumPublic !== quorum.publicKeyHex) return false;
  const point = Buffer.from(quorum.publicKeyHex, 'hex');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  return verify('sha256', Buffer.from(outer.data, 'hex'), { key, dsaEncoding: 'der' }, Buffer.from(outer.dataSignature, 'hex'));
};

const metrics = async (): Promise<string> => (await fetch(stack.healthUrl('accounts').replace(/\/health$/, '/metrics'))).text();

describe('a production platform’s EMAIL_OTP through the SMTP relay', () => {
  it('mails the code from the platform’s sender; the code read from the mail logs in, and the export is signed by the quorum key', async () => {
    const wallet = await newWallet(production);
    const challenged = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: production, body: {} });
    expect(challenged.status).toBe(200);
    expect(signedByQuorum(challenged.body.otpEncryptionTargetBundle)).toBe(true);

    const mail = await relay.mailTo(wallet.email);
    expect(mail.envelope.from).toBe('otp@corridor.test');
    expect(mail.headers).toMatchObject({
      from: 'Live Wallet Notifications <noreply@live-wallet.test>',
      'reply-to': 'support@live-wallet.test',
      to: wallet.email,
      subject: 'Live Wallet sign-in code',
    });
    expect(mail.raw).toContain('https://live-wallet.test/logo.png');
    const code = mail.text.split('\n').find((line) => /^\d{8}$/.test(line));
    expect(code).toBeDefined();
    secrets.push(code!);

    const tek = genKeypair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(challenged.body.otpEncryptionTargetBundle, tek.pubHex, code!) };
    const verifyPath = `/auth/credentials/${wallet.credentialId}/verify`;
    const leg1 = await api.call('POST', verifyPath, { auth: production, body });
    expect(leg1.status).toBe(202);
    const session = await api.call('POST', verifyPath, { auth: production, body, headers: signedHeaders(tek.privHex, leg1.body) });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ id: expect.stringMatching(/^Session:/), type: 'EMAIL_OTP', accountId: wallet.accountId });
    secrets.push(tek.privHex);

    const client = genKeypair();
    const exportPath = `/internal-accounts/${wallet.accountId}/export`;
    const first = await api.call('POST', exportPath, { auth: production, body: { clientPublicKey: client.pubHex } });
    expect(first.status).toBe(202);
    const exported = await api.call('POST', exportPath, {
      auth: production,
      body: { clientPublicKey: client.pubHex },
      headers: signedHeaders(tek.privHex, first.body),
    });
    expect(exported.status).toBe(200);
    const credentials = exported.body.encryptedWalletCredentials as string;
    expect(signedByQuorum(credentials)).toBe(true);
    // Data altered in transit no longer verifies: a client that checks before decrypting refuses it.
    const outer = JSON.parse(credentials) as { data: string };
    expect(
      signedByQuorum(
        JSON.stringify({ ...JSON.parse(credentials), data: `${outer.data.slice(0, -2)}${outer.data.endsWith('0') ? '1' : '0'}` }),
      ),
    ).toBe(false);
    const mnemonic = await decryptExport(credentials, client.privHex);
    expect(validateMnemonic(mnemonic, wordlist)).toBe(true);
    secrets.push(mnemonic);

    expect(await metrics()).toMatch(/corridor_embedded_wallet_otp_mails_total\{environment="PRODUCTION",outcome="sent",reason=""\} [1-9]/);
  });

  it('answers 503 EMAIL_DELIVERY_FAILED when the relay refuses the address, counts it, and names the reason on /health', async () => {
    const wallet = await newWallet(production, refusedEmail);
    const refused = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: production, body: {} });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      status: 503,
      code: 'EMAIL_DELIVERY_FAILED',
      message: expect.stringContaining('email address'),
      details: { reason: 'recipient' },
    });
    expect(await metrics()).toMatch(
      /corridor_embedded_wallet_otp_mails_total\{environment="PRODUCTION",outcome="failed",reason="recipient"\} 1/,
    );
    const health = (await (await fetch(stack.healthUrl('accounts'))).json()) as { parts: Record<string, Record<string, unknown>> };
    expect(health.parts['mail']).toMatchObject({ status: 'degraded', transport: 'smtp', reason: 'recipient' });
    const logged = stack.logs.accounts.filter((line) => line.includes('An Embedded Wallet OTP email was not sent'));
    expect(logged.some((line) => line.includes('"reason":"recipient"') && line.includes('550'))).toBe(true);
  });
});

describe('a sandbox platform', () => {
  it('keeps the mailbox: nothing reaches the relay, and its bundles are unsigned as the reference’s sandbox', async () => {
    const wallet = await newWallet(sandbox);
    const challenged = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: sandbox, body: {} });
    expect(challenged.status).toBe(200);
    expect(JSON.parse(challenged.body.otpEncryptionTargetBundle)).toMatchObject({ dataSignature: '', enclaveQuorumPublic: '' });
    const mailbox = await api.call('GET', `/sandbox/auth/mailbox?accountId=${wallet.accountId}`, { auth: sandbox, unchecked: true });
    expect(mailbox.body.data).toEqual([expect.objectContaining({ to: wallet.email, subject: 'Play Wallet sign-in code' })]);
    expect(relay.received.some((mail) => mail.envelope.to.includes(wallet.email))).toBe(false);
  });
});

describe('secrets', () => {
  it('writes no OTP, session key, mnemonic, relay password or signing key to any log', () => {
    const logs = Object.values(stack.logs).flat().join('\n');
    for (const secret of secrets) expect(logs).not.toContain(secret);
  });
});
