// Embedded Wallets as an attacker holding a platform token (or a foothold on the bus) would try
// them: every way wallet money could leave without its owner's stamp, and a burst of OTP guesses.
// Each attack test failed on the code before decisions 0020 and 0021 (see the slice's report); the
// last tests show the stamped paths still move wallet money, and the books still balance.
import { randomBytes, randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { Client } from 'pg';
import { type DebitData, type HoldData, newId, newUuid, type RequestContext, subjects } from '@corridor/contracts';
import { MessagingModule, ServiceClient } from '@corridor/messaging';
import { assertLedgerConserved, eventually } from '@corridor/testing';
import { createApi, type Credentials } from '../support/api';
import { type Stack, startStack } from '../support/stack';
import { encryptOtp, genKeypair, signedHeaders, stamp } from '../support/wallet-client';

const FUNDS = 50_000_000;
const SPARK_ADDRESS = 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let platformId: string;
let pg: Client;
let bus: INestApplicationContext | undefined;

type Wallet = { customerId: string; accountId: string; credentialId: string; usdb: string; spark: string };
type Balance = { available: number; total: number };

let customers = 0;
/** A customer with an email (so a wallet), a USDB crypto account, a funded wallet and a USDB SPARK_WALLET the platform registered. */
const newWallet = async (): Promise<Wallet> => {
  customers += 1;
  const email = `attack.${customers}.${randomUUID().slice(0, 8)}@example.com`;
  const created = await api.call('POST', '/customers', {
    auth: platform,
    body: { customerType: 'INDIVIDUAL', fullName: `Mallory Victim ${customers}`, email, currencies: ['USD', 'USDB'] },
  });
  expect(created.status).toBe(201);
  const customerId = created.body.id as string;
  const accounts = await eventually(
    async () =>
      (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body
        .data as { id: string; type: string; balance: { currency: { code: string } } }[],
    (list) =>
      list.some((account) => account.type === 'EMBEDDED_WALLET') &&
      list.some((account) => account.type !== 'EMBEDDED_WALLET' && account.balance.currency.code === 'USDB'),
    30_000,
  );
  const accountId = accounts.find((account) => account.type === 'EMBEDDED_WALLET')!.id;
  const usdb = accounts.find((account) => account.type !== 'EMBEDDED_WALLET' && account.balance.currency.code === 'USDB')!.id;
  expect((await api.call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { auth: platform, body: { amount: FUNDS } })).status).toBe(
    200,
  );
  const credentials = await api.call('GET', `/auth/credentials?accountId=${accountId}`, { auth: platform });
  const spark = await api.call('POST', '/customers/external-accounts', {
    auth: platform,
    body: { customerId, currency: 'USDB', accountInfo: { accountType: 'SPARK_WALLET', address: SPARK_ADDRESS } },
  });
  expect(spark.status).toBe(201);
  return { customerId, accountId, credentialId: credentials.body.data[0].id as string, usdb, spark: spark.body.id as string };
};

const balanceOf = async (accountId: string, customerId: string): Promise<Balance> => {
  const list = (await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`, { auth: platform })).body
    .data as { id: string; balance: { amount: number }; totalBalance: { amount: number } }[];
  const account = list.find((item) => item.id === accountId)!;
  return { available: account.balance.amount, total: account.totalBalance.amount };
};
const walletBalance = (wallet: Wallet): Promise<Balance> => balanceOf(wallet.accountId, wallet.customerId);

/** An OTP challenge; answers the bundle and the code the sandbox mailbox received. */
const challenge = async (wallet: Wallet): Promise<{ bundle: string; code: string }> => {
  const challenged = await api.call('POST', `/auth/credentials/${wallet.credentialId}/challenge`, { auth: platform, body: {} });
  expect(challenged.status).toBe(200);
  const mail = (await api.call('GET', `/sandbox/auth/mailbox?accountId=${wallet.accountId}`, { auth: platform, unchecked: true })).body
    .data as { otpCode: string }[];
  return { bundle: challenged.body.otpEncryptionTargetBundle as string, code: mail[0]!.otpCode };
};

/** The owner's device signs in with the mailed OTP; its TEK becomes the session key that stamps. */
const login = async (wallet: Wallet): Promise<string> => {
  const { bundle, code } = await challenge(wallet);
  const tek = genKeypair();
  const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, tek.pubHex, code) };
  const first = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platform, body });
  expect(first.status).toBe(202);
  const second = await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, {
    auth: platform,
    body,
    headers: signedHeaders(tek.privHex, first.body),
  });
  expect(second.status).toBe(200);
  return tek.privHex;
};

/** Straight onto the bus, as a foothold inside the network would send it (no gateway, no HTTP checks). */
const onTheBus = async <T>(subject: string, data: unknown): Promise<T> => {
  bus ??= await NestFactory.createApplicationContext(
    MessagingModule.forRoot({
      natsUrl: stack.bus.url,
      natsAuth: stack.bus.harness,
      subjectPrefix: stack.subjectPrefix,
      name: 'e2e-abuse-wallet',
    }),
    { logger: ['error'] },
  );
  await bus.init();
  const context: RequestContext = {
    platformId,
    actor: { kind: 'system', name: 'e2e-attacker' },
    requestId: newUuid(),
    correlationId: newUuid(),
  };
  return bus.get(ServiceClient).request<T>(subject, data, { context, timeoutMs: 15_000 });
};
const refusalOf = (promise: Promise<unknown>): Promise<{ code?: string; status?: number } | 'accepted'> =>
  promise.then(
    () => 'accepted' as const,
    (error: { code?: string; status?: number }) => ({ code: error.code, status: error.status }),
  );

/** An agent of the wallet's customer, connected; answers its Authorization header. */
const walletAgent = async (wallet: Wallet, permissions: string[]): Promise<string> => {
  const policy = {
    permissions,
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: 'USDB', perTransactionLimit: FUNDS, dailyLimit: FUNDS, dailyTransactionLimit: 100, monthlyLimit: FUNDS },
  };
  const created = await api.call('POST', '/agents', {
    auth: platform,
    body: { name: `Agent ${randomUUID().slice(0, 6)}`, customerId: wallet.customerId, policy },
  });
  expect(created.status).toBe(201);
  const redeemed = await api.call('POST', `/agents/device-codes/${created.body.deviceCode.code}/redeem`);
  expect(redeemed.status).toBe(200);
  return `Bearer ${redeemed.body.accessToken as string}`;
};

/** A card authorization's hold on the wallet, as the cards service sends it, straight onto the bus. */
const cardHoldOf = (wallet: Wallet, cardId: string): HoldData => ({
  accountId: wallet.accountId,
  operationId: `${newUuid()}:hold`,
  holdId: newId('Hold'),
  amount: '1000',
  currency: 'USDB',
  cause: { kind: 'CARD_SETTLEMENT', id: newId('CardTransaction') },
  cardId,
});

const cardFor = (wallet: Wallet, sources: string[]) => ({
  cardholderId: wallet.customerId,
  platformCardId: `abuse-${randomUUID().slice(0, 12)}`,
  form: 'VIRTUAL',
  fundingSources: sources,
});
const activeCard = async (cardId: string) =>
  eventually(
    async () => (await api.call('GET', `/cards/${cardId}`, { auth: platform })).body,
    (card) => card.state === 'ACTIVE',
  );
const authorize = (cardId: string, amount: number) =>
  api.call('POST', `/sandbox/cards/${cardId}/simulate/authorization`, {
    auth: platform,
    body: { amount, currency: { code: 'USDB' }, merchant: { descriptor: 'SHADY MERCHANT', mcc: '5814', country: 'US' } },
    headers: { 'Idempotency-Key': newUuid() },
  });

beforeAll(async () => {
  stack = await startStack({ env: { EMBEDDED_WALLET_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
  api = createApi(stack, 'abuse-wallet');
  const created = await stack.createPlatform();
  platform = created.token as Credentials;
  platformId = created.platformId;
  // Wallets on, and USDB among the currencies, so each victim also has a USDB account of their own.
  const current = (await api.call('GET', '/config', { auth: platform })).body;
  const usdb = {
    currencyCode: 'USDB',
    minAmount: 1,
    maxAmount: 1_000_000_000,
    requiredCounterpartyFields: [],
    enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
  };
  const supportedCurrencies = [
    ...current.supportedCurrencies.filter((currency: { currencyCode: string }) => currency.currencyCode !== 'USDB'),
    usdb,
  ];
  expect(
    (
      await api.call('PATCH', '/config', {
        auth: platform,
        body: { supportedCurrencies, embeddedWalletConfig: { appName: 'Victim Wallet' } },
      })
    ).status,
  ).toBe(200);
  pg = new Client({ connectionString: stack.database.url });
  await pg.connect();
}, 180_000);

afterAll(async () => {
  api?.saveReport();
  await bus?.close();
  await pg?.end();
  await stack?.close();
});

describe('a platform token alone cannot move wallet money', () => {
  it('cannot transfer out of a funded wallet to a USDB SPARK_WALLET it just registered: 202, a stranger’s stamp 401', async () => {
    const wallet = await newWallet();
    const body = { source: { accountId: wallet.accountId }, destination: { accountId: wallet.spark }, amount: 1_000_000 };
    const first = await api.call('POST', '/transfer-out', { auth: platform, body });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });
    const forged = await api.call('POST', '/transfer-out', {
      auth: platform,
      body,
      headers: signedHeaders(genKeypair().privHex, first.body),
    });
    expect([forged.status, forged.body.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    const whole = await api.call('POST', '/transfer-out', { auth: platform, body: { source: body.source, destination: body.destination } });
    expect([whole.status, whole.body.code, whole.body.details?.field]).toEqual([400, 'INVALID_INPUT', 'amount']);
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS, total: FUNDS });
  });

  it('cannot create a card funded by the wallet without the signed retry: 202 issues nothing, a stranger’s stamp is 401', async () => {
    const wallet = await newWallet();
    const body = cardFor(wallet, [wallet.accountId]);
    const first = await api.call('POST', '/cards', { auth: platform, body });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      payloadToSign: expect.any(String),
      requestId: expect.stringMatching(/^Request:/),
      expiresAt: expect.any(String),
    });
    const forged = await api.call('POST', '/cards', { auth: platform, body, headers: signedHeaders(genKeypair().privHex, first.body) });
    expect([forged.status, forged.body.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    const cards = await api.call('GET', `/cards?cardholderId=${encodeURIComponent(wallet.customerId)}`, { auth: platform });
    expect(cards.body.data).toEqual([]);
  });

  it('cannot bind the wallet to a card with PATCH without the signed retry, and the card can then hold nothing of the wallet', async () => {
    const wallet = await newWallet();
    const issued = await api.call('POST', '/cards', { auth: platform, body: cardFor(wallet, [wallet.usdb]) });
    expect(issued.status).toBe(201);
    await activeCard(issued.body.id);
    const body = { fundingSources: [wallet.accountId] };
    const first = await api.call('PATCH', `/cards/${issued.body.id}`, { auth: platform, body });
    expect(first.status).toBe(202);
    const forged = await api.call('PATCH', `/cards/${issued.body.id}`, {
      auth: platform,
      body,
      headers: signedHeaders(genKeypair().privHex, first.body),
    });
    expect([forged.status, forged.body.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    expect((await api.call('GET', `/cards/${issued.body.id}`, { auth: platform })).body.fundingSources).toEqual([wallet.usdb]);
    // Not even a caller that names this card to the ledger directly: the owner never consented to it.
    expect(await refusalOf(onTheBus(subjects.accounts.ledger.hold, cardHoldOf(wallet, issued.body.id)))).toEqual({
      code: 'WALLET_CONSENT_REQUIRED',
      status: 403,
    });
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS, total: FUNDS });
  });

  it('a card bound to the wallet without its owner’s consent (straight to the cards service) cannot hold the wallet’s money', async () => {
    const wallet = await newWallet();
    const card = await onTheBus<{ id: string }>(subjects.cards.card.create, cardFor(wallet, [wallet.accountId]));
    await activeCard(card.id);
    const declined = await authorize(card.id, 1_000_000);
    expect([declined.status, declined.body.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS, total: FUNDS });
  });
});

describe('an agent cannot move wallet money without the owner’s stamp', () => {
  it('cannot transfer out of the wallet without the customer’s stamp: 202, then 401, and nothing reserved or recorded', async () => {
    const wallet = await newWallet();
    const bearer = await walletAgent(wallet, ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS']);
    const eventsBefore = (await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM agents.events')).rows[0]!.n;
    const body = { source: { accountId: wallet.accountId }, destination: { accountId: wallet.spark }, amount: 1_000_000 };
    const first = await api.call('POST', '/agents/me/transfer-out', { auth: bearer, body });
    expect(first.status).toBe(202);
    const forged = await api.call('POST', '/agents/me/transfer-out', {
      auth: bearer,
      body,
      headers: signedHeaders(genKeypair().privHex, first.body),
    });
    expect([forged.status, forged.body.code]).toEqual([401, 'WALLET_SIGNATURE_INVALID']);
    expect((await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM agents.events')).rows[0]!.n).toBe(eventsBefore);
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS, total: FUNDS });
  });
});

describe('the ledger itself refuses an unproven wallet movement, whatever service asks', () => {
  it('refuses a hold, a debit and a card hold of a wallet sent straight over the bus without its owner’s consent', async () => {
    const wallet = await newWallet();
    const transactionId = newId('Transaction');
    const hold: HoldData = {
      accountId: wallet.accountId,
      operationId: `${transactionId}:hold`,
      holdId: transactionId,
      amount: '1000000',
      currency: 'USDB',
      cause: { kind: 'TRANSACTION', id: transactionId },
    };
    const debit: DebitData = {
      accountId: wallet.accountId,
      operationId: `${newUuid()}:debit`,
      amount: '1000000',
      currency: 'USDB',
      cause: { kind: 'ADJUSTMENT', id: newUuid() },
    };
    const cardHold: HoldData = {
      ...hold,
      operationId: `${newUuid()}:hold`,
      holdId: newId('Hold'),
      cause: { kind: 'CARD_SETTLEMENT', id: newId('CardTransaction') },
      cardId: newId('Card'),
    };
    const settled: HoldData = {
      ...hold,
      operationId: `${newUuid()}:hold`,
      holdId: newId('Transaction'),
      settleOperationId: `${newUuid()}:settle`,
    };
    const refusals = [
      await refusalOf(onTheBus(subjects.accounts.ledger.hold, hold)),
      await refusalOf(onTheBus(subjects.accounts.ledger.debit, debit)),
      await refusalOf(onTheBus(subjects.accounts.ledger.hold, cardHold)),
      await refusalOf(onTheBus(subjects.accounts.ledger.hold, settled)),
    ];
    expect(refusals).toEqual(Array(4).fill({ code: 'WALLET_CONSENT_REQUIRED', status: 403 }));
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS, total: FUNDS });
  });
});

describe('guessing a wallet’s OTP', () => {
  it('judges a parallel burst of wrong OTPs at most up to the limit, and the OTP dies with the last guess', async () => {
    const wallet = await newWallet();
    const { bundle, code } = await challenge(wallet);
    const wrong = code === '000001' ? '000002' : '000001';
    const guesses = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, genKeypair().pubHex, wrong) };
        return (await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platform, body })).status;
      }),
    );
    // 401: a guess that was judged; 429: refused before it was judged.
    expect(guesses.filter((status) => status === 401).length).toBe(5);
    expect(guesses.filter((status) => status === 429).length).toBe(25);
    const right = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtp(bundle, genKeypair().pubHex, code) };
    expect((await api.call('POST', `/auth/credentials/${wallet.credentialId}/verify`, { auth: platform, body: right })).status).toBe(429);
    const { rows } = await pg.query<{ used: boolean }>(
      'SELECT used_at IS NOT NULL AS used FROM accounts.auth_otps WHERE credential_id = $1',
      [wallet.credentialId],
    );
    expect(rows).toEqual([{ used: true }]);
  });
});

describe('the owner’s stamp still moves wallet money', () => {
  it('transfers out of the wallet to its USDB SPARK_WALLET with the signed retry, once, for the amount signed', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const body = { source: { accountId: wallet.accountId }, destination: { accountId: wallet.spark }, amount: 1_500_000 };
    const key = { 'Idempotency-Key': newUuid() };
    const first = await api.call('POST', '/transfer-out', { auth: platform, body, headers: key });
    expect(first.status).toBe(202);
    const sent = await api.call('POST', '/transfer-out', {
      auth: platform,
      body,
      headers: { ...key, ...signedHeaders(session, first.body) },
    });
    expect([sent.status, sent.body.status, sent.body.id]).toEqual([201, 'PENDING', expect.stringMatching(/^Transaction:/)]);
    expect(first.body.payloadToSign).toContain(sent.body.id);
    await eventually(
      () => walletBalance(wallet),
      (balance) => balance.total === FUNDS - 1_500_000,
    );
    // The signed request is spent: the same retry without the gateway's record moves nothing more.
    const again = await api.call('POST', '/transfer-out', { auth: platform, body, headers: signedHeaders(session, first.body) });
    expect([again.status, again.body.code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect((await walletBalance(wallet)).total).toBe(FUNDS - 1_500_000);
  });

  it('executes a quote from the wallet with the stamp, and the ledger holds what was signed for', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const usd = (
      (
        await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(wallet.customerId)}&type=INTERNAL_FIAT`, {
          auth: platform,
        })
      ).body.data as { id: string }[]
    )[0]!.id;
    const quote = await api.call('POST', '/quotes', {
      auth: platform,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: usd },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 2_000_000,
      },
    });
    expect(quote.status).toBe(201);
    const payloadToSign = quote.body.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string;
    const executed = await api.call('POST', `/quotes/${quote.body.id}/execute`, {
      auth: platform,
      headers: { 'Grid-Wallet-Signature': stamp(session, payloadToSign) },
    });
    expect(executed.status).toBe(200);
    const after = await eventually(
      () => walletBalance(wallet),
      (balance) => balance.available === FUNDS - Number(quote.body.totalSendingAmount),
    );
    expect(after.available).toBe(FUNDS - Number(quote.body.totalSendingAmount));
  });

  it('binds the wallet to a card with the signed retry (one Idempotency-Key), holds its money for that card, until unbound', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const body = cardFor(wallet, [wallet.accountId]);
    const key = { 'Idempotency-Key': newUuid() };
    const first = await api.call('POST', '/cards', { auth: platform, body, headers: key });
    expect(first.status).toBe(202);
    const issued = await api.call('POST', '/cards', { auth: platform, body, headers: { ...key, ...signedHeaders(session, first.body) } });
    expect(issued.status).toBe(201);
    expect(first.body.payloadToSign).toContain(issued.body.id);
    await activeCard(issued.body.id);
    const authorized = await authorize(issued.body.id, 1_000_000);
    expect(authorized.status).toBe(200);
    expect(await walletBalance(wallet)).toEqual({ available: FUNDS - 1_000_000, total: FUNDS });

    const unbind = { fundingSources: [wallet.usdb] };
    const challenged = await api.call('PATCH', `/cards/${issued.body.id}`, { auth: platform, body: unbind });
    expect(
      (
        await api.call('PATCH', `/cards/${issued.body.id}`, {
          auth: platform,
          body: unbind,
          headers: signedHeaders(session, challenged.body),
        })
      ).status,
    ).toBe(200);
    // The card's consent ends once accounts has followed the change; then no caller can hold the wallet for this card.
    const refused = await eventually(
      () => refusalOf(onTheBus(subjects.accounts.ledger.hold, cardHoldOf(wallet, issued.body.id))),
      (outcome) => outcome !== 'accepted',
    );
    expect(refused).toEqual({ code: 'WALLET_CONSENT_REQUIRED', status: 403 });
  });

  it('lets an agent execute a wallet quote with the customer’s stamp, and transfer out of the wallet with the signed retry', async () => {
    const wallet = await newWallet();
    const session = await login(wallet);
    const bearer = await walletAgent(wallet, ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES']);
    const usd = (
      (
        await api.call('GET', `/customers/internal-accounts?customerId=${encodeURIComponent(wallet.customerId)}&type=INTERNAL_FIAT`, {
          auth: platform,
        })
      ).body.data as { id: string }[]
    )[0]!.id;
    const quote = await api.call('POST', '/agents/me/quotes', {
      auth: bearer,
      body: {
        source: { sourceType: 'ACCOUNT', accountId: wallet.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: usd },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 1_000_000,
      },
    });
    expect(quote.status).toBe(201);
    const payloadToSign = quote.body.paymentInstructions[0].accountOrWalletInfo.payloadToSign as string;
    const executed = await api.call('POST', `/agents/me/quotes/${quote.body.id}/execute`, {
      auth: bearer,
      headers: { 'Grid-Wallet-Signature': stamp(session, payloadToSign) },
    });
    expect([executed.status, executed.body.status]).toEqual([200, 'APPROVED']);
    const spent = Number(quote.body.totalSendingAmount);
    await eventually(
      () => walletBalance(wallet),
      (balance) => balance.total === FUNDS - spent,
    );

    const body = { source: { accountId: wallet.accountId }, destination: { accountId: wallet.spark }, amount: 500_000 };
    const first = await api.call('POST', '/agents/me/transfer-out', { auth: bearer, body });
    expect(first.status).toBe(202);
    const submitted = await api.call('POST', '/agents/me/transfer-out', {
      auth: bearer,
      body,
      headers: signedHeaders(session, first.body),
    });
    expect([submitted.status, submitted.body.type, submitted.body.status]).toEqual([201, 'TRANSFER_OUT', 'APPROVED']);
    expect(first.body.payloadToSign).toContain(submitted.body.transaction.id);
    await eventually(
      () => walletBalance(wallet),
      (balance) => balance.total === FUNDS - spent - 500_000,
    );
  });

  it('keeps the books balanced', async () => {
    // The machine's PostgreSQL is shared by other suites and can be at max_connections for a moment: retried, never skipped.
    for (let attempt = 1; ; attempt += 1) {
      const failure = await assertLedgerConserved({ connectionString: stack.database.url, schema: 'accounts' }).then(
        () => undefined,
        (error: Error) => error,
      );
      if (failure === undefined) return;
      if (!failure.message.includes('too many clients') || attempt === 20) throw failure;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });
});
