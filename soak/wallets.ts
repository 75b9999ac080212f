import type { Client } from 'pg';
import { eventually } from '@corridor/testing';
import { decryptExport, decryptSessionKey, encryptOtp, genKeypair, signedHeaders, stamp } from '../tests/support/wallet-client';
import type { CheckResult } from './checks';
import type { Reply, SoakClient } from './client';
import type { Operation, SoakContext } from './context';
import type { SoakPlatform } from './workload';

// Embedded Wallet traffic (issue 16, decision 0017): customers with an email on platforms that
// enabled wallets get an EMBEDDED_WALLET account; their users log in with EMAIL_OTP (challenge, the
// OTP from the sandbox mailbox or the sandbox code, HPKE-sealed to the target bundle, the TEK-signed
// second leg), then with the session: the signed retry on PATCH privateEnabled, export (the
// mnemonic decrypted and compared across exports), lists, adding an OAUTH credential and revoking it
// (both signed retries, the revoke signed by the EMAIL_OTP session), the customer's email change
// (the EMAIL_OTP credential follows it), a quote paid from the wallet (executed once without a stamp,
// 401, then with one), refresh, and self-logout of every session. A wrong OTP and a bad stamp now
// and then are 401 outcomes. Under chaos a signed leg 2 retried after its first attempt took effect
// finds its request id used (401 INVALID_SIGNATURE): an outcome, and the flow restarts from leg 1.
// The end checks are in checkWallets below.

export type SoakWallet = {
  customerId: string;
  email: string;
  accountId: string;
  credentialId: string;
  /** Challenges sent this run: the service locks a credential's challenges after 10 in 10 minutes. */
  challenges: number;
  busy: boolean;
  /** The mnemonic the first export decrypted to; every later export must decrypt to the same. */
  mnemonic?: string;
  exports: number;
  mnemonicMismatches: number;
  /** Sessions this run revoked (204 answered): none may be listed afterwards. */
  revokedSessions: Set<string>;
  privateEnabled: boolean;
  /** A PATCH whose end we did not see (failed after retries): the stored value is unknown until the next 200. */
  privacyUnknown: boolean;
  /** OAUTH credentials this run added and has not revoked (201 answered, no 204/404 yet). */
  extraCredentials: Set<string>;
  /** An add or revoke whose end we did not see: the credential list is not checked. */
  credentialsUnknown: boolean;
  credentialsAdded: number;
  credentialsRevoked: number;
  /** An email change whose end we did not see: the email is read back at the next visit. */
  emailUnknown: boolean;
  emailChanges: number;
  /** The customer's USD account, where the wallet's quotes pay to. */
  usdAccountId?: string;
  /** Minor units funded into the wallet, and the totalSendingAmount of its quotes executed (200 answered). */
  fundedMinor: number;
  spentMinor: number;
  /** A funding or an execution whose end we did not see: the balance is not checked. */
  balanceUnknown: boolean;
  quotesExecuted: number;
};

type Session = { id: string; privHex: string };

const WALLET_CONFIG = { appName: 'Soak Wallet', otpLength: 8, alphanumeric: true };
/** Leave room below the service's lock (10 challenges in 10 minutes per credential). */
const CHALLENGES_PER_WALLET = 8;
const WALLET_OPEN_WAIT_MS = 20_000;
const SANDBOX_OTP = '000000';
const WALLET_FUNDING_MINOR = 20_000_000;
/** Above the sandbox fees on USDB (0.3 % + 0.10 USDB). */
const WALLET_QUOTE_MINOR = 1_000_000;
/** What checkWallets checks, also main.ts's name for it when the check itself throws. */
export const WALLET_CHECK_NAME =
  'wallets: one per customer with its last privateEnabled, one mnemonic, revoked sessions gone, credentials and email as last answered, ' +
  'balance funded minus paid, no secret stored or logged, tenants apart';

/** An OIDC ID token as the reference's sandbox takes it: fresh claims of a sandbox issuer, a dummy signature. */
const sandboxOidcToken = (sub: string): string => {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return (
    `${part({ alg: 'RS256', kid: 'soak' })}` +
    `.${part({ iss: 'https://accounts.google.com', aud: 'soak-wallet-app', sub, iat: now, exp: now + 300 })}.dummy-signature`
  );
};

/** What the wallet traffic saw, for the end checks: every platform's wallets and every secret. */
const state = {
  enabled: new Set<string>(),
  wallets: new Map<string, SoakWallet[]>(),
  /** OTPs seen, session keys (TEKs and decrypted refreshed keys) and mnemonics: none may reach an event or a log. */
  secrets: new Set<string>(),
};
const walletsOf = (platform: SoakPlatform): SoakWallet[] => {
  let list = state.wallets.get(platform.platformId);
  if (!list) state.wallets.set(platform.platformId, (list = []));
  return list;
};

const newWalletState = (customerId: string, email: string, accountId: string, credentialId: string): SoakWallet => ({
  customerId,
  email,
  accountId,
  credentialId,
  challenges: 0,
  busy: false,
  exports: 0,
  mnemonicMismatches: 0,
  revokedSessions: new Set(),
  privateEnabled: false,
  privacyUnknown: false,
  extraCredentials: new Set(),
  credentialsUnknown: false,
  credentialsAdded: 0,
  credentialsRevoked: 0,
  emailUnknown: false,
  emailChanges: 0,
  fundedMinor: 0,
  spentMinor: 0,
  balanceUnknown: false,
  quotesExecuted: 0,
});

/** At setup: every platform but the last enables Embedded Wallets (the last shows a platform without them). */
export const enableWallets = async (client: SoakClient, platforms: SoakPlatform[]): Promise<void> => {
  for (const platform of platforms.length > 1 ? platforms.slice(0, -1) : platforms) {
    const reply = await client.call('PATCH /config (embeddedWalletConfig)', platform.auth, 'PATCH', '/config', {
      body: { embeddedWalletConfig: WALLET_CONFIG },
    });
    if (reply.status !== 200) throw new Error(`PATCH /config embeddedWalletConfig answered ${reply.status}: ${reply.text}`);
    state.enabled.add(platform.platformId);
  }
};

/** A retried leg 2 whose first attempt took effect: its request id is used. An outcome; the caller restarts from leg 1. */
const usedRequestId = (ctx: SoakContext, operation: string, reply: Reply): boolean => {
  const { stats } = ctx;
  if (reply.status === 401 && reply.retried && reply.body?.code === 'INVALID_SIGNATURE') {
    stats.outcome(`${operation} leg 2 retried into a used request id (flow restarted)`);
    return true;
  }
  return false;
};

/**
 * Leg 1 (202) then leg 2 signed with the session key. Restarts once from leg 1 when a retried
 * leg 2 found its request id used; leg 1 of that restart may answer `onRestart` (the first leg 2
 * took effect: the value is already set, the session already revoked).
 */
const signed = async (
  ctx: SoakContext,
  operation: string,
  platform: SoakPlatform,
  method: string,
  path: string,
  body: unknown,
  privHex: string,
  done: number[],
  onRestart: number[] = [],
): Promise<Reply | undefined> => {
  const { client, expect } = ctx;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const first = await client.call(`${operation} (leg 1)`, platform.auth, method, path, body === undefined ? {} : { body });
    if (attempt > 0 && onRestart.includes(first.status)) return first;
    if (!expect(`${operation} (leg 1)`, first, [202])) return undefined;
    const second = await client.call(`${operation} (leg 2)`, platform.auth, method, path, {
      ...(body === undefined ? {} : { body }),
      headers: signedHeaders(privHex, first.body),
    });
    if (usedRequestId(ctx, operation, second)) continue;
    return expect(`${operation} (leg 2)`, second, done) ? second : undefined;
  }
  return undefined;
};

/**
 * challenge → OTP from the mailbox (or the sandbox code) → sealed to the bundle
 * with a fresh TEK → 202 → TEK-signed leg 2 → the TEK is the session key.
 */
const login = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet): Promise<Session | undefined> => {
  const { client, stats, random, expect } = ctx;
  wallet.challenges += 1;
  const challenged = await client.call(
    'POST /auth/credentials/{id}/challenge',
    platform.auth,
    'POST',
    `/auth/credentials/${wallet.credentialId}/challenge`,
    { body: {} },
  );
  if (!expect('POST /auth/credentials/{id}/challenge', challenged, [200])) return undefined;
  const bundle = challenged.body.otpEncryptionTargetBundle as string;
  let otp = SANDBOX_OTP;
  if (random() < 0.85) {
    const mail = await client.call(
      'GET /sandbox/auth/mailbox',
      platform.auth,
      'GET',
      `/sandbox/auth/mailbox?accountId=${encodeURIComponent(wallet.accountId)}`,
    );
    if (!expect('GET /sandbox/auth/mailbox', mail, [200])) return undefined;
    const latest = mail.body?.data?.[0] as { to: string; otpCode: string } | undefined;
    if (!latest || latest.to !== wallet.email) {
      stats.surprise('sandbox mailbox has no OTP for the wallet after a challenge', `${wallet.accountId}: ${mail.text}`);
      return undefined;
    }
    otp = latest.otpCode;
    state.secrets.add(otp);
  }
  const path = `/auth/credentials/${wallet.credentialId}/verify`;
  if (random() < 0.1) {
    // A mistyped OTP: 401, counted toward the lock; the right one afterwards clears the count.
    const wrong = await client.call('POST /auth/credentials/{id}/verify (wrong OTP)', platform.auth, 'POST', path, {
      body: { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, genKeypair().pubHex, 'WRONG0TP') },
    });
    if (expect('POST /auth/credentials/{id}/verify (wrong OTP)', wrong, [401]))
      stats.outcome('wallet verify with a wrong OTP answered 401');
  }
  const tek = genKeypair();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, otp) };
  const first = await client.call('POST /auth/credentials/{id}/verify (leg 1)', platform.auth, 'POST', path, { body });
  // Leg 1 retried after it used the OTP (a killed replica): 401, the OTP is spent; log in again later.
  if (first.status === 401 && first.retried) return void stats.outcome('wallet verify leg 1 retried into a used OTP (flow restarted)');
  if (!expect('POST /auth/credentials/{id}/verify (leg 1)', first, [202])) return undefined;
  const second = await client.call('POST /auth/credentials/{id}/verify (leg 2)', platform.auth, 'POST', path, {
    body,
    headers: signedHeaders(tek.privHex, first.body),
  });
  if (usedRequestId(ctx, 'POST /auth/credentials/{id}/verify', second)) return undefined;
  if (!expect('POST /auth/credentials/{id}/verify (leg 2)', second, [200])) return undefined;
  state.secrets.add(tek.privHex);
  return { id: second.body.id as string, privHex: tek.privHex };
};

const exportWallet = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const client_ = genKeypair();
  const reply = await signed(
    ctx,
    'POST /internal-accounts/{id}/export',
    platform,
    'POST',
    `/internal-accounts/${wallet.accountId}/export`,
    { clientPublicKey: client_.pubHex },
    session.privHex,
    [200],
  );
  if (!reply) return;
  const mnemonic = await decryptExport(reply.body.encryptedWalletCredentials, client_.privHex);
  state.secrets.add(mnemonic);
  wallet.exports += 1;
  if (wallet.mnemonic === undefined) wallet.mnemonic = mnemonic;
  else if (wallet.mnemonic !== mnemonic) wallet.mnemonicMismatches += 1;
};

const togglePrivacy = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { client, stats, random, expect } = ctx;
  const path = `/internal-accounts/${wallet.accountId}`;
  const body = { privateEnabled: !wallet.privateEnabled };
  if (random() < 0.15) {
    // A stamp by a key that is no session of this wallet: 401 WALLET_SIGNATURE_INVALID.
    const first = await client.call('PATCH /internal-accounts/{id} (leg 1)', platform.auth, 'PATCH', path, { body });
    if (first.status === 202) {
      const bad = await client.call('PATCH /internal-accounts/{id} (bad stamp)', platform.auth, 'PATCH', path, {
        body,
        headers: signedHeaders(genKeypair().privHex, first.body),
      });
      if (expect('PATCH /internal-accounts/{id} (bad stamp)', bad, [401]) && bad.body?.code === 'WALLET_SIGNATURE_INVALID')
        stats.outcome('wallet PATCH with a bad stamp answered 401');
      else if (bad.status === 401) stats.surprise('PATCH /internal-accounts/{id} (bad stamp) answered another 401 code', bad.text);
    }
  }
  // 200 at a restarted leg 1: the value is already what we ask (the first leg 2 took effect).
  const reply = await signed(ctx, 'PATCH /internal-accounts/{id}', platform, 'PATCH', path, body, session.privHex, [200], [200]);
  if (!reply) return void (wallet.privacyUnknown = true);
  wallet.privacyUnknown = false;
  if (reply.body?.privateEnabled !== body.privateEnabled)
    stats.surprise('PATCH /internal-accounts/{id} answered another privateEnabled', reply.text);
  wallet.privateEnabled = Boolean(reply.body?.privateEnabled);
};

const lists = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { client, stats, expect } = ctx;
  const sessions = await client.call(
    'GET /auth/sessions',
    platform.auth,
    'GET',
    `/auth/sessions?accountId=${encodeURIComponent(wallet.accountId)}`,
  );
  if (
    expect('GET /auth/sessions', sessions, [200]) &&
    !(sessions.body.data as { id: string }[]).some((listed) => listed.id === session.id)
  ) {
    stats.surprise('GET /auth/sessions does not list an active session', `${wallet.accountId} ${session.id}`);
  }
  const credentials = await client.call(
    'GET /auth/credentials',
    platform.auth,
    'GET',
    `/auth/credentials?accountId=${encodeURIComponent(wallet.accountId)}`,
  );
  if (
    expect('GET /auth/credentials', credentials, [200]) &&
    !(credentials.body.data as { id: string }[]).some((listed) => listed.id === wallet.credentialId)
  ) {
    stats.surprise('GET /auth/credentials does not list the EMAIL_OTP credential', wallet.accountId);
  }
};

const refresh = async (ctx: SoakContext, platform: SoakPlatform, session: Session): Promise<Session | undefined> => {
  const next = genKeypair();
  const reply = await signed(
    ctx,
    'POST /auth/sessions/{id}/refresh',
    platform,
    'POST',
    `/auth/sessions/${session.id}/refresh`,
    { clientPublicKey: next.pubHex },
    session.privHex,
    [201],
  );
  if (!reply) return undefined;
  const key = await decryptSessionKey(reply.body.encryptedSessionSigningKey, next.privHex);
  state.secrets.add(key);
  return { id: reply.body.id as string, privHex: key };
};

/** Self-logout: the session signs its own revoke. A restarted flow whose first revoke took effect finds the session gone (404). */
const revoke = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { client, stats, expect } = ctx;
  const reply = await signed(
    ctx,
    'DELETE /auth/sessions/{id}',
    platform,
    'DELETE',
    `/auth/sessions/${session.id}`,
    undefined,
    session.privHex,
    [204],
    [404],
  );
  if (!reply) return;
  if (reply.status === 404) stats.outcome('wallet revoke restarted after its first leg 2 took effect: 404');
  wallet.revokedSessions.add(session.id);
  const listed = await client.call(
    'GET /auth/sessions',
    platform.auth,
    'GET',
    `/auth/sessions?accountId=${encodeURIComponent(wallet.accountId)}`,
  );
  if (expect('GET /auth/sessions', listed, [200]) && (listed.body.data as { id: string }[]).some((row) => row.id === session.id)) {
    stats.surprise('GET /auth/sessions lists a session right after its revoke', `${wallet.accountId} ${session.id}`);
  }
};

/**
 * A second credential (OAUTH, a sandbox token) added with the signed retry, then revoked with the
 * EMAIL_OTP session signing (a session of another credential). A restarted add whose first leg 2
 * took effect meets 400 (the identity is already a credential): the credential is then found by
 * its nickname (the token's sub).
 */
const addAndRevokeCredential = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { client, stats, runTag, next, expect } = ctx;
  const sub = `soak-oauth-${runTag}-${next()}`;
  let credentialId: string | undefined;
  for (let attempt = 0; attempt < 2 && !credentialId; attempt += 1) {
    const body = { type: 'OAUTH', accountId: wallet.accountId, oidcToken: sandboxOidcToken(sub) };
    const first = await client.call('POST /auth/credentials (OAUTH, leg 1)', platform.auth, 'POST', '/auth/credentials', { body });
    if (!expect('POST /auth/credentials (OAUTH, leg 1)', first, [202])) return void (wallet.credentialsUnknown = true);
    const second = await client.call('POST /auth/credentials (OAUTH, leg 2)', platform.auth, 'POST', '/auth/credentials', {
      body,
      headers: signedHeaders(session.privHex, first.body),
    });
    if (usedRequestId(ctx, 'POST /auth/credentials (OAUTH)', second)) continue;
    if (attempt > 0 && second.status === 400) {
      stats.outcome('wallet credential add restarted after its first leg 2 took effect: 400');
      const listed = await client.call(
        'GET /auth/credentials',
        platform.auth,
        'GET',
        `/auth/credentials?accountId=${encodeURIComponent(wallet.accountId)}`,
      );
      credentialId = (listed.body?.data as { id: string; nickname: string }[] | undefined)?.find((row) => row.nickname === sub)?.id;
      break;
    }
    if (!expect('POST /auth/credentials (OAUTH, leg 2)', second, [201])) return void (wallet.credentialsUnknown = true);
    credentialId = second.body.id as string;
  }
  if (!credentialId) return void (wallet.credentialsUnknown = true);
  wallet.extraCredentials.add(credentialId);
  wallet.credentialsAdded += 1;
  const revoked = await signed(
    ctx,
    'DELETE /auth/credentials/{id}',
    platform,
    'DELETE',
    `/auth/credentials/${credentialId}`,
    undefined,
    session.privHex,
    [204],
    [404],
  );
  if (!revoked) return void (wallet.credentialsUnknown = true);
  if (revoked.status === 404) stats.outcome('wallet credential revoke restarted after its first leg 2 took effect: 404');
  wallet.extraCredentials.delete(credentialId);
  wallet.credentialsRevoked += 1;
};

/**
 * The customer's email changed with the wallet's signed retry; a restarted flow whose first leg 2 took effect finds it done (200 at leg 1).
 */
const changeEmail = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { stats, runTag, next } = ctx;
  const email = `soak.wallet.moved.${next()}.${runTag}@example.com`;
  const reply = await signed(
    ctx,
    'PATCH /customers/{id} (wallet email)',
    platform,
    'PATCH',
    `/customers/${wallet.customerId}`,
    { customerType: 'INDIVIDUAL', email },
    session.privHex,
    [200],
    [200],
  );
  if (!reply) return void (wallet.emailUnknown = true);
  if (reply.body?.email !== email) stats.surprise('PATCH /customers/{id} (wallet email) answered another email', reply.text);
  wallet.email = email;
  wallet.emailChanges += 1;
};

/** After an email change whose end we did not see: the email the customer has now. */
const relearnEmail = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet): Promise<void> => {
  const { client, expect } = ctx;
  const customer = await client.call('GET /customers/{id}', platform.auth, 'GET', `/customers/${wallet.customerId}`);
  if (!expect('GET /customers/{id}', customer, [200])) return;
  wallet.email = customer.body.email as string;
  wallet.emailUnknown = false;
};

/**
 * A quote from the wallet to the customer's USD account: executing it without
 * a stamp is 401, with the session's stamp over its payloadToSign 200.
 */
const payFromWallet = async (ctx: SoakContext, platform: SoakPlatform, wallet: SoakWallet, session: Session): Promise<void> => {
  const { client, stats, expect } = ctx;
  if (!wallet.usdAccountId) {
    const accounts = await client.call(
      'GET /customers/internal-accounts (wallet USD)',
      platform.auth,
      'GET',
      `/customers/internal-accounts?customerId=${encodeURIComponent(wallet.customerId)}&type=INTERNAL_FIAT`,
    );
    wallet.usdAccountId = (accounts.body?.data as { id: string; balance: { currency: { code: string } } }[] | undefined)?.find(
      (account) => account.balance.currency.code === 'USD',
    )?.id;
    if (!wallet.usdAccountId) return void stats.surprise('wallet customer without a USD account', wallet.customerId);
  }
  if (wallet.fundedMinor - wallet.spentMinor < WALLET_QUOTE_MINOR * 2) {
    const funded = await client.call(
      'POST /sandbox/internal-accounts/{id}/fund (wallet)',
      platform.auth,
      'POST',
      `/sandbox/internal-accounts/${wallet.accountId}/fund`,
      { body: { amount: WALLET_FUNDING_MINOR } },
    );
    if (!expect('POST /sandbox/internal-accounts/{id}/fund (wallet)', funded, [200])) return void (wallet.balanceUnknown = true);
    wallet.fundedMinor += WALLET_FUNDING_MINOR;
  }
  const quote = await client.call('POST /quotes (wallet)', platform.auth, 'POST', '/quotes', {
    body: {
      source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: wallet.usdAccountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: WALLET_QUOTE_MINOR,
    },
  });
  if (!expect('POST /quotes (wallet)', quote, [200, 201])) return;
  const transactionId = quote.body.transactionId as string;
  platform.transactionIds.add(transactionId);
  const payloadToSign = quote.body.paymentInstructions?.[0]?.accountOrWalletInfo?.payloadToSign as string | undefined;
  if (!payloadToSign) {
    platform.quotesNotExecuted.add(transactionId);
    return void stats.surprise('a quote from a wallet without accountOrWalletInfo.payloadToSign', quote.text);
  }
  const path = `/quotes/${quote.body.id}/execute`;
  const unsigned = await client.call('POST /quotes/{id}/execute (wallet, no stamp)', platform.auth, 'POST', path);
  if (expect('POST /quotes/{id}/execute (wallet, no stamp)', unsigned, [401]) && unsigned.body?.code === 'WALLET_SIGNATURE_MISSING')
    stats.outcome('wallet quote executed without a stamp answered 401');
  const executed = await client.call('POST /quotes/{id}/execute (wallet)', platform.auth, 'POST', path, {
    headers: { 'Grid-Wallet-Signature': stamp(session.privHex, payloadToSign) },
  });
  if (!expect('POST /quotes/{id}/execute (wallet)', executed, [200])) {
    // Not executed as far as we know: PENDING until it expires is explained; a balance we cannot account for is not checked.
    platform.quotesNotExecuted.add(transactionId);
    wallet.balanceUnknown = true;
    return;
  }
  wallet.spentMinor += Number(quote.body.totalSendingAmount);
  wallet.quotesExecuted += 1;
};

const openWallet = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, runTag, next, expect } = ctx;
  const n = next();
  const email = `soak.wallet.${n}.${runTag}@example.com`;
  const created = await client.call('POST /customers (wallet)', platform.auth, 'POST', '/customers', {
    body: {
      customerType: 'INDIVIDUAL',
      fullName: `Soak Wallet ${n}`,
      platformCustomerId: `soak-wallet-${runTag}-${n}`,
      email,
      currencies: ['USD'],
    },
  });
  if (!expect('POST /customers (wallet)', created, [201])) return;
  const customerId = created.body.id as string;
  platform.customerIds.add(customerId);
  const accounts = await eventually(
    () =>
      client.call(
        'GET /customers/internal-accounts (wallet)',
        platform.auth,
        'GET',
        `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET`,
      ),
    (reply) => reply.body?.data?.[0] !== undefined,
    { timeoutMs: WALLET_OPEN_WAIT_MS, intervalMs: 500 },
  );
  const account = accounts.body?.data?.[0] as { id: string; privateEnabled: boolean } | undefined;
  if (account) {
    const credentials = await client.call(
      'GET /auth/credentials',
      platform.auth,
      'GET',
      `/auth/credentials?accountId=${encodeURIComponent(account.id)}`,
    );
    const credential = (credentials.body?.data as { id: string; type: string }[] | undefined)?.find((row) => row.type === 'EMAIL_OTP');
    if (!expect('GET /auth/credentials', credentials, [200]) || !credential)
      return void stats.surprise('wallet account without its EMAIL_OTP credential', account.id);
    walletsOf(platform).push({
      ...newWalletState(customerId, email, account.id, credential.id),
      privateEnabled: account.privateEnabled,
    });
    return;
  }
  // Kept for the end check (exactly one wallet per customer), which then reports it.
  walletsOf(platform).push({ ...newWalletState(customerId, email, '', ''), challenges: CHALLENGES_PER_WALLET, privacyUnknown: true });
  stats.surprise(`EMBEDDED_WALLET account not opened within ${WALLET_OPEN_WAIT_MS / 1000} s of POST /customers`, customerId);
};

/** One user's visit: log in, a few signed operations in random order, refresh, and log out of every session. */
const visit = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { random, pick } = ctx;
  const wallet = pick(
    walletsOf(platform).filter((candidate) => !candidate.busy && candidate.accountId && candidate.challenges < CHALLENGES_PER_WALLET),
  );
  if (!wallet) return openWallet(ctx, platform);
  wallet.busy = true;
  try {
    if (wallet.emailUnknown) await relearnEmail(ctx, platform, wallet);
    const session = await login(ctx, platform, wallet);
    if (!session) return;
    const sessions = [session];
    const steps = [
      () => togglePrivacy(ctx, platform, wallet, sessions.at(-1)!),
      () => exportWallet(ctx, platform, wallet, sessions.at(-1)!),
      () => lists(ctx, platform, wallet, sessions.at(-1)!),
    ];
    // The EMAIL_OTP session signs these: the revoke of the added credential must be signed by another credential's session.
    if (random() < 0.3) steps.push(() => addAndRevokeCredential(ctx, platform, wallet, session));
    if (random() < 0.3) steps.push(() => changeEmail(ctx, platform, wallet, session));
    if (random() < 0.3) steps.push(() => payFromWallet(ctx, platform, wallet, session));
    for (const step of steps.sort(() => random() - 0.5)) await step();
    if (random() < 0.5) {
      const refreshed = await refresh(ctx, platform, session);
      if (refreshed) {
        sessions.push(refreshed);
        await (random() < 0.5 ? exportWallet(ctx, platform, wallet, refreshed) : togglePrivacy(ctx, platform, wallet, refreshed));
      }
    }
    for (const each of sessions.reverse()) await revoke(ctx, platform, wallet, each);
  } finally {
    wallet.busy = false;
  }
};

const enabled = (platform: SoakPlatform) => state.enabled.has(platform.platformId);

export const createWalletOperations = (ctx: SoakContext): Record<string, Operation> => ({
  walletOpen: { weight: 1, run: async (platform) => (enabled(platform) ? openWallet(ctx, platform) : undefined) },
  walletVisit: { weight: 3, run: async (platform) => (enabled(platform) ? visit(ctx, platform) : undefined) },
});

/**
 * The wallet's credentials as last answered (EMAIL_OTP plus the added ones not
 * revoked), and its email on the customer and the EMAIL_OTP credential alike.
 */
const credentialsAndEmailOf = async (client: SoakClient, platform: SoakPlatform, wallet: SoakWallet): Promise<string[]> => {
  const failures: string[] = [];
  const credentials = await client.call(
    'GET /auth/credentials (end check)',
    platform.auth,
    'GET',
    `/auth/credentials?accountId=${encodeURIComponent(wallet.accountId)}`,
  );
  if (credentials.status !== 200) return [`${platform.name}: GET /auth/credentials of ${wallet.accountId} answered ${credentials.status}`];
  const rows = credentials.body.data as { id: string; type: string; nickname: string }[];
  const extras = rows
    .filter((row) => row.type !== 'EMAIL_OTP')
    .map((row) => row.id)
    .sort();
  const expected = [...wallet.extraCredentials].sort();
  if (!wallet.credentialsUnknown && extras.join() !== expected.join())
    failures.push(
      `${platform.name}: ${wallet.accountId} has other credentials [${extras.join(', ')}], not the added ones left ` +
        `[${expected.join(', ')}]`,
    );
  if (wallet.emailUnknown) return failures;
  const emailOtp = rows.filter((row) => row.type === 'EMAIL_OTP').map((row) => row.nickname);
  if (emailOtp.join() !== wallet.email)
    failures.push(
      `${platform.name}: ${wallet.accountId}'s EMAIL_OTP credentials are for [${emailOtp.join(', ')}], its customer's last email change ` +
        `answered ${wallet.email}`,
    );
  const customer = await client.call('GET /customers/{id} (end check)', platform.auth, 'GET', `/customers/${wallet.customerId}`);
  if (customer.status !== 200 || customer.body.email !== wallet.email)
    failures.push(
      `${platform.name}: customer ${wallet.customerId} has email ${customer.body?.email ?? `? (${customer.status})`}, its last change ` +
        `answered ${wallet.email}`,
    );
  return failures;
};

const listed = (failures: string[]) => (failures.length > 20 ? [...failures.slice(0, 20), `… and ${failures.length - 20} more`] : failures);

/**
 * The wallets at the end: one EMBEDDED_WALLET account per wallet customer (none on the platform
 * without wallets), one mnemonic per wallet across exports, no revoked session listed, the added
 * credentials that were not revoked and nothing else, the customer's email and its EMAIL_OTP
 * credential's both the last one changed to, the balance funded minus what its executed quotes
 * sent, no secret in any events table or the stack's output, and another platform's token on a
 * wallet's credentials and sessions answered an empty list.
 */
export const checkWallets = async (
  client: SoakClient,
  pg: Client,
  platforms: SoakPlatform[],
  logs: Record<string, string[]>,
): Promise<CheckResult> => {
  const failures: string[] = [];
  const figures = {
    wallets: 0,
    exports: 0,
    revokedSessions: 0,
    credentialsAdded: 0,
    credentialsRevoked: 0,
    emailChanges: 0,
    walletQuotesExecuted: 0,
    secrets: state.secrets.size,
    tenancyProbes: 0,
  };
  for (const platform of platforms) {
    const wallets = state.wallets.get(platform.platformId) ?? [];
    if (!state.enabled.has(platform.platformId) && wallets.length > 0)
      failures.push(`${platform.name} has wallets though it never enabled them`);
    for (const wallet of wallets) {
      figures.wallets += 1;
      figures.exports += wallet.exports;
      const accounts = await client.call(
        'GET /customers/internal-accounts (end check)',
        platform.auth,
        'GET',
        `/customers/internal-accounts?customerId=${encodeURIComponent(wallet.customerId)}&type=EMBEDDED_WALLET`,
      );
      const count = accounts.body?.data?.length;
      const account =
        accounts.status === 200 && count === 1
          ? (accounts.body.data[0] as { privateEnabled: boolean; balance: { amount: number } })
          : undefined;
      if (!account)
        failures.push(
          `${platform.name}: customer ${wallet.customerId} has ${count ?? `? (${accounts.status})`} EMBEDDED_WALLET accounts, not 1`,
        );
      if (account && !wallet.privacyUnknown && account.privateEnabled !== wallet.privateEnabled) {
        failures.push(
          `${platform.name}: ${wallet.accountId} has privateEnabled ${account.privateEnabled}; its last signed PATCH ` +
            `answered ${wallet.privateEnabled}`,
        );
      }
      if (account && !wallet.balanceUnknown && account.balance.amount !== wallet.fundedMinor - wallet.spentMinor) {
        failures.push(
          `${platform.name}: ${wallet.accountId} holds ${account.balance.amount}; funded ${wallet.fundedMinor} ` +
            `minus ${wallet.spentMinor} sent by its ${wallet.quotesExecuted} executed quotes is ${wallet.fundedMinor - wallet.spentMinor}`,
        );
      }
      figures.credentialsAdded += wallet.credentialsAdded;
      figures.credentialsRevoked += wallet.credentialsRevoked;
      figures.emailChanges += wallet.emailChanges;
      figures.walletQuotesExecuted += wallet.quotesExecuted;
      if (wallet.accountId) failures.push(...(await credentialsAndEmailOf(client, platform, wallet)));
      if (wallet.mnemonicMismatches > 0)
        failures.push(
          `${platform.name}: ${wallet.accountId} exported ${wallet.mnemonicMismatches} of ${wallet.exports} times a mnemonic other than ` +
            `its first`,
        );
      if (wallet.revokedSessions.size > 0) {
        figures.revokedSessions += wallet.revokedSessions.size;
        const sessions = await client.call(
          'GET /auth/sessions (end check)',
          platform.auth,
          'GET',
          `/auth/sessions?accountId=${encodeURIComponent(wallet.accountId)}`,
        );
        if (sessions.status !== 200)
          failures.push(`${platform.name}: GET /auth/sessions of ${wallet.accountId} answered ${sessions.status}`);
        else
          for (const row of sessions.body.data as { id: string }[])
            if (wallet.revokedSessions.has(row.id))
              failures.push(`${platform.name}: session ${row.id} of ${wallet.accountId} is listed after its revoke`);
      }
    }
    // Without wallets the soak's own customers (no email) get none either: a few probes of the last platform.
    for (const customerId of state.enabled.has(platform.platformId) ? [] : [...platform.customerIds].slice(0, 5)) {
      const accounts = await client.call(
        'GET /customers/internal-accounts (end check)',
        platform.auth,
        'GET',
        `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET`,
      );
      if ((accounts.body?.data?.length ?? 0) > 0)
        failures.push(`${platform.name} never enabled wallets, yet its customer ${customerId} has one`);
    }
    for (const other of platforms.filter((candidate) => candidate !== platform)) {
      for (const wallet of (state.wallets.get(other.platformId) ?? []).filter((candidate) => candidate.accountId).slice(0, 3)) {
        for (const path of [
          `/auth/credentials?accountId=${encodeURIComponent(wallet.accountId)}`,
          `/auth/sessions?accountId=${encodeURIComponent(wallet.accountId)}`,
        ]) {
          figures.tenancyProbes += 1;
          const reply = await client.call('GET /auth/* (other tenant)', platform.auth, 'GET', path);
          // The lists take accountId as a filter (the reference declares no 404): another tenant's wallet lists nothing.
          const leaked = reply.status === 200 ? ((reply.body?.data as unknown[] | undefined)?.length ?? 0) : null;
          if (leaked !== 0)
            failures.push(`${platform.name} GET ${path} of ${other.name}'s wallet: ${reply.status}, ${leaked ?? 'no'} rows`);
        }
      }
    }
  }
  const secrets = [...state.secrets];
  if (secrets.length > 0) {
    const { rows: tables } = await pg.query<{ table_schema: string }>(
      "SELECT table_schema FROM information_schema.tables WHERE table_name = 'events'",
    );
    for (const { table_schema: schema } of tables) {
      const { rows } = await pg.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${schema}".events WHERE data::text LIKE ANY($1) OR metadata::text LIKE ANY($1)`,
        [secrets.map((secret) => `%${secret}%`)],
      );
      if (rows[0]!.n > 0)
        failures.push(`${rows[0]!.n} events in ${schema}.events contain a wallet secret (an OTP, a session key or a mnemonic)`);
    }
    const output = Object.values(logs).flat().join('');
    const leaked = secrets.filter((secret) => output.includes(secret));
    if (leaked.length > 0) failures.push(`${leaked.length} wallet secrets appear in the stack's output`);
  }
  return { name: WALLET_CHECK_NAME, failures: listed(failures), figures };
};
