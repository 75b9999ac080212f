// The Embedded Wallet tables against real PostgreSQL: what the wallet policy stores of a platform
// whichever of its events comes first, OTP mail through the mail port and the sandbox mailbox's
// purge, two revokes racing for a wallet's last two credentials, a failure count taken one attempt
// at a time under concurrent guesses, a signed request given back when its change is refused, the
// service's answer to a row no rule expects, and a production platform's OTP through a real SMTP
// relay on loopback, read from the received mail and verified.
import { randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/p256';
import { sha256 } from '@noble/hashes/sha256';
import { join } from 'node:path';
import { Pool } from 'pg';
import { DomainError, newId, type PlatformConfigWire, type RequestContext, systemClock } from '@corridor/contracts';
import { ensureEventStoreSchema, migrate } from '@corridor/event-store';
import type { ServiceClient } from '@corridor/messaging';
import { createControllableClock, startTestSmtpServer, type TestSmtpServer, useTestDatabase } from '@corridor/testing';
import { admitAttempt } from './auth-rules';
import { OpenWalletsPolicy } from './open-wallets.policy';
import type { OtpMail, OtpMailer, OtpMailers } from './otp-mail';
import { OtpMailMetrics } from './otp-mail-metrics';
import { PurgeSandboxMailboxJob } from './purge-sandbox-mailbox.job';
import { SandboxMailbox } from './sandbox-mailbox';
import { SmtpMailer } from './smtp-mailer';
import { bundleSigningKeyOf, compressedPublicKey, generateP256KeyPair, hpkeSeal, toHex } from './wallet-crypto';
import { FailureCounter } from './failure-counter';
import { SignedRequests } from './signed-requests';
import { parseAuthorizeEmailChange, parseExportWallet, parseVerifyCredential } from './wallet-commands';
import { WalletCredentials } from './wallet-credentials';
import { WalletEmailChange } from './wallet-email-change';
import { WalletKeys } from './wallet-keys';
import { WalletLookups, type WalletOptions } from './wallet-lookups';
import { WalletOidc } from './wallet-oidc';
import { WalletOtpMail } from './wallet-otp-mail';
import { WalletSessions } from './wallet-sessions';
import { WalletSignIn } from './wallet-sign-in';
import { WalletStore } from './wallet-store';

const database = useTestDatabase();
let pool: Pool;
let store: WalletStore;
let platforms = 0;

beforeAll(async () => {
  await ensureEventStoreSchema(database.url, 'accounts');
  await migrate({ connectionString: database.url, schema: 'accounts', directory: join(__dirname, '../migrations') });
  pool = new Pool({ connectionString: database.url, max: 8 });
  store = new WalletStore(pool, 'accounts');
});

afterAll(() => pool?.end());

const newPlatformId = (): string => `Platform:00000000-0000-4000-8000-${String((platforms += 1)).padStart(12, '0')}`;
const options: WalletOptions = {
  keyEncryptionKey: randomBytes(32),
  sessionTtlSeconds: 900,
  oidcIssuers: [],
  webAuthn: { rpIds: ['localhost'], origins: ['http://localhost:3000'] },
  mailboxSweepSeconds: 60,
  authFailuresMax: 5,
  smtp: null,
  exportSigningKey: null,
};
/** A mailer that keeps what it was given, for the port's tests. */
const recordingMailer = (): OtpMailer & { sent: OtpMail[] } => {
  const sent: OtpMail[] = [];
  return { sent, send: async (mail) => void sent.push(mail) };
};
/** The Embedded Wallet flows as the accounts module wires them, on the test's store. */
const walletsWith = (mailers: OtpMailers = {}, clock = systemClock, metrics = new OtpMailMetrics(), walletOptions = options) => {
  const lookups = new WalletLookups(store, clock);
  const failures = new FailureCounter(store, walletOptions);
  const signedRequests = new SignedRequests(store, clock, lookups, failures);
  const otpMail = new WalletOtpMail(store, walletOptions, clock, mailers, new SandboxMailbox(pool, 'accounts'), metrics, lookups);
  const oidc = new WalletOidc(store, walletOptions);
  const sessions = new WalletSessions(store, walletOptions, clock, lookups, signedRequests);
  return {
    signedRequests,
    credentials: new WalletCredentials(store, walletOptions, clock, lookups, signedRequests, otpMail, oidc),
    signIn: new WalletSignIn(store, walletOptions, clock, lookups, failures, signedRequests, otpMail, oidc, sessions),
    keys: new WalletKeys(store, walletOptions, clock, signedRequests),
    emailChange: new WalletEmailChange(store, lookups, signedRequests),
  };
};
const contextOf = (platformId: string): RequestContext => ({
  platformId,
  actor: { kind: 'token', tokenId: 'ApiToken:1' },
  requestId: newId('Request'),
  correlationId: 'int',
});

/** A sandbox platform with wallets, and one wallet with its EMAIL_OTP credential. */
const newWallet = async (
  environment: 'SANDBOX' | 'PRODUCTION' = 'SANDBOX',
  emailOf = (customerId: string) => `${customerId}@example.com`,
): Promise<{ platformId: string; accountId: string; customerId: string; credentialId: string }> => {
  const platformId = newPlatformId();
  await store.upsertPlatform({ platformId, environment, enabled: true, config: { appName: 'Int Wallet', expirationSeconds: 120 } });
  const customerId = newId('Customer');
  const accountId = newId('InternalAccount');
  const credentialId = newId('AuthMethod');
  await store.upsertCustomer(customerId, platformId, emailOf(customerId));
  await store.provisionWallet({
    accountId,
    platformId,
    customerId,
    sealedMnemonic: 'sealed',
    credentialId,
    email: emailOf(customerId),
    now: new Date(),
  });
  return { platformId, accountId, customerId, credentialId };
};

describe('a platform’s environment, whichever event comes first', () => {
  /** The platform service as the policy asks it: environments it knows, 404 for the others. */
  const environments = new Map<string, 'SANDBOX' | 'PRODUCTION'>();
  const lookups: string[] = [];
  const platformService = {
    request: async (
      subject: string,
      _data: unknown,
      options: { context: { platformId: string } },
    ): Promise<Partial<PlatformConfigWire>> => {
      lookups.push(subject);
      const environment = environments.get(options.context.platformId);
      if (!environment) throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Platform ${options.context.platformId} does not exist.`);
      return { platformId: options.context.platformId, environment };
    },
  } as unknown as ServiceClient;
  const unused = {} as never;
  const policy = (): OpenWalletsPolicy => new OpenWalletsPolicy(unused, store, unused, unused, unused, systemClock, platformService);
  const created = (platformId: string, environment: string) => ({ platformId: '', data: { platformId, environment, settings: {} } });
  const configured = (platformId: string) => ({
    platformId,
    data: { platformId, changes: { embeddedWalletConfig: { appName: 'Early' } } },
  });

  it.each(['SANDBOX', 'PRODUCTION'] as const)(
    'given PlatformConfigUpdated before PlatformCreated, then the %s environment is stored from the first event on',
    async (environment) => {
      const platformId = newPlatformId();
      environments.set(platformId, environment);
      await policy().handlePlatformEvent(configured(platformId), 'msg-1');
      expect(await store.platform(platformId)).toEqual({ platformId, environment, enabled: true, config: { appName: 'Early' } });
      await policy().handlePlatformEvent(created(platformId, environment), 'msg-2');
      expect(await store.platform(platformId)).toEqual({ platformId, environment, enabled: true, config: { appName: 'Early' } });
    },
  );

  it('given PlatformCreated first, then the platform service is not asked', async () => {
    const platformId = newPlatformId();
    lookups.length = 0;
    await policy().handlePlatformEvent(created(platformId, 'SANDBOX'), 'msg-1');
    await policy().handlePlatformEvent(configured(platformId), 'msg-2');
    expect(await store.platform(platformId)).toEqual({ platformId, environment: 'SANDBOX', enabled: true, config: { appName: 'Early' } });
    expect(lookups).toEqual([]);
  });

  it(
    'given a config event for a platform the platform service does not know yet, then it fails (and is redelivered) and stores ' +
      'nothing',
    async () => {
      const platformId = newPlatformId();
      await expect(policy().handlePlatformEvent(configured(platformId), 'msg-1')).rejects.toMatchObject({ code: 'REFERENCE_NOT_FOUND' });
      expect(await store.platform(platformId)).toBeNull();
    },
  );
});

describe('the customers a platform that enables wallets still owes one', () => {
  it(
    'given customers with and without an email and one whose wallet account is open, then only those with an email and no wallet ' +
      'account, whatever the platform was before',
    async () => {
      const platformId = newPlatformId();
      await store.upsertPlatform({ platformId, environment: 'SANDBOX', enabled: true, config: {} });
      const [owed, opened, withoutEmail] = [newId('Customer'), newId('Customer'), newId('Customer')];
      expect(await store.upsertCustomer(owed, platformId, 'owed@example.com')).toBe('owed@example.com');
      await store.upsertCustomer(opened, platformId, 'opened@example.com');
      await store.upsertCustomer(withoutEmail, platformId, null);
      // An event without an email keeps the one known.
      expect(await store.upsertCustomer(owed, platformId, null)).toBe('owed@example.com');
      await pool.query(
        `INSERT INTO accounts.internal_accounts (id, platform_id, customer_id, account_type, currency, status, available, held,
       private_enabled, created_at, updated_at)
       VALUES ($1, $2, $3, 'EMBEDDED_WALLET', 'USDB', 'ACTIVE', 0, 0, false, now(), now())`,
        [newId('InternalAccount'), platformId, opened],
      );
      expect(await store.customersWithoutWallet(platformId)).toEqual([{ customerId: owed, email: 'owed@example.com' }]);
    },
  );
});

describe('recording a customer', () => {
  it('given a customer recorded with an email, when it comes again with that email or none, then nothing is written', async () => {
    const platformId = newPlatformId();
    const customerId = newId('Customer');
    const version = async () =>
      (await pool.query<{ xmin: string }>('SELECT xmin::text FROM accounts.wallet_customers WHERE customer_id = $1', [customerId])).rows[0]
        ?.xmin;
    expect(await store.upsertCustomer(customerId, platformId, 'same@example.com')).toBe('same@example.com');
    const recorded = await version();
    expect(await store.upsertCustomer(customerId, platformId, 'same@example.com')).toBe('same@example.com');
    expect(await store.upsertCustomer(customerId, platformId, null)).toBe('same@example.com');
    expect(await version()).toBe(recorded);
    // A new email is written.
    expect(await store.upsertCustomer(customerId, platformId, 'new@example.com')).toBe('new@example.com');
    expect(await version()).not.toBe(recorded);
  });
});

describe('a new customer’s CustomerCreated, after POST /customers handled it (decision 0027)', () => {
  /** Every wallet store call the policy makes, by method; `failing` names one whose next call fails. */
  const counted = (failing?: string) => {
    const calls: string[] = [];
    let fails = failing;
    const spy = new Proxy(store, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          calls.push(String(name));
          if (name === fails) {
            fails = undefined;
            throw new Error(`${String(name)} failed (test)`);
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const unused = {} as never;
    return { calls, policy: new OpenWalletsPolicy(unused, spy, unused, unused, unused, systemClock, unused) };
  };
  const createdEvent = (platformId: string, customerId: string, email: string | null) => ({
    platformId,
    data: { customerId, platformId, profile: email ? { email } : {} },
  });

  it('given the same replica handled the create with that email, then it asks the store nothing; another replica does it all', async () => {
    const platformId = newPlatformId();
    await store.upsertPlatform({ platformId, environment: 'SANDBOX', enabled: false, config: {} });
    const customerId = newId('Customer');
    const here = counted();
    await here.policy.openForNewCustomer({ platformId, customerId, email: 'new@example.com' }, false, 'create');
    here.calls.length = 0;
    await here.policy.handleCustomerCreated(createdEvent(platformId, customerId, 'new@example.com'), 'event');
    expect(here.calls).toEqual([]);

    const elsewhere = counted();
    await elsewhere.policy.handleCustomerCreated(createdEvent(platformId, customerId, 'new@example.com'), 'event');
    expect(elsewhere.calls).toEqual(['upsertCustomer', 'platform']);
  });

  it('given the event arrives while the create’s handling is under way, then it waits for it and repeats nothing', async () => {
    const platformId = newPlatformId();
    await store.upsertPlatform({ platformId, environment: 'SANDBOX', enabled: false, config: {} });
    const customerId = newId('Customer');
    const here = counted();
    const creating = here.policy.openForNewCustomer({ platformId, customerId, email: 'busy@example.com' }, false, 'create');
    await here.policy.handleCustomerCreated(createdEvent(platformId, customerId, 'busy@example.com'), 'event');
    expect(await creating).toBeNull();
    expect(here.calls).toEqual(['upsertCustomer', 'platform']);
  });

  it('given the create’s handling failed, then the event does the work itself', async () => {
    const platformId = newPlatformId();
    await store.upsertPlatform({ platformId, environment: 'SANDBOX', enabled: false, config: {} });
    const customerId = newId('Customer');
    const here = counted('platform');
    await expect(here.policy.openForNewCustomer({ platformId, customerId, email: 'x@example.com' }, false, 'create')).rejects.toThrow(
      'platform failed (test)',
    );
    here.calls.length = 0;
    await here.policy.handleCustomerCreated(createdEvent(platformId, customerId, 'x@example.com'), 'event');
    expect(here.calls).toEqual(['upsertCustomer', 'platform']);
  });

  it('given the event names another email than the create recorded, then it is handled in full', async () => {
    const platformId = newPlatformId();
    const customerId = newId('Customer');
    const here = counted();
    await here.policy.openForNewCustomer({ platformId, customerId, email: null }, false, 'create');
    here.calls.length = 0;
    await here.policy.handleCustomerCreated(createdEvent(platformId, customerId, 'later@example.com'), 'event');
    expect(here.calls).toEqual(['upsertCustomer', 'platform']);
    expect(await store.upsertCustomer(customerId, platformId, null)).toBe('later@example.com');
  });
});

describe('a credential row of a type no rule knows', () => {
  it(
    'given a stored type other than OAUTH, EMAIL_OTP and PASSKEY, when it is verified, then it fails loudly instead of answering a ' +
      '400',
    async () => {
      const wallet = await newWallet();
      const id = newId('AuthMethod');
      await pool.query(
        `INSERT INTO accounts.auth_credentials (id, platform_id, account_id, type, nickname, created_at, updated_at)
       VALUES ($1, $2, $3, 'SMS', 'phone', now(), now())`,
        [id, wallet.platformId, wallet.accountId],
      );
      const verified = walletsWith().signIn.verify(
        contextOf(wallet.platformId),
        parseVerifyCredential({ credentialId: id, body: { type: 'SMS' } }),
      );
      await expect(verified).rejects.toThrow(`Credential ${id} is stored with type SMS, which no verify handles.`);
      await expect(verified).rejects.not.toBeInstanceOf(DomainError);
    },
  );
});

describe('OTP mail through the mail port', () => {
  it(
    'given a sandbox platform, when a credential is challenged, ' + 'then the sandbox mailer gets the mail with the code and its expiry',
    async () => {
      const wallet = await newWallet();
      const sandbox = recordingMailer();
      const clock = createControllableClock(new Date('2026-11-25T12:00:00Z'));
      const reply = await walletsWith({ SANDBOX: sandbox }, clock).signIn.challenge(contextOf(wallet.platformId), {
        credentialId: wallet.credentialId,
        clientPublicKey: undefined,
      });
      expect(reply.otpEncryptionTargetBundle).toEqual(expect.any(String));
      expect(sandbox.sent).toEqual([
        {
          platformId: wallet.platformId,
          accountId: wallet.accountId,
          to: `${wallet.customerId}@example.com`,
          from: { name: 'Notifications', address: null },
          replyTo: null,
          subject: 'Int Wallet sign-in code',
          text: expect.stringContaining('It expires in 2 minutes.'),
          html: expect.stringContaining('Int Wallet'),
          otpCode: expect.stringMatching(/^\d{6}$/),
          sentAt: new Date('2026-11-25T12:00:00Z'),
          expiresAt: new Date('2026-11-25T12:02:00Z'),
        },
      ]);
      expect(sandbox.sent[0]!.text).toContain(`\n${sandbox.sent[0]!.otpCode}\n`);
    },
  );

  it('given a production platform and no production mailer, then 503 EMAIL_DELIVERY_UNAVAILABLE and nothing sent', async () => {
    const wallet = await newWallet('PRODUCTION');
    const sandbox = recordingMailer();
    await expect(
      walletsWith({ SANDBOX: sandbox }).signIn.challenge(contextOf(wallet.platformId), {
        credentialId: wallet.credentialId,
        clientPublicKey: undefined,
      }),
    ).rejects.toMatchObject({
      code: 'EMAIL_DELIVERY_UNAVAILABLE',
      status: 503,
    });
    expect(sandbox.sent).toEqual([]);
  });

  it('given a production mailer, then production mail goes through it and not to the sandbox mailbox', async () => {
    const wallet = await newWallet('PRODUCTION');
    const [sandbox, production] = [recordingMailer(), recordingMailer()];
    await walletsWith({ SANDBOX: sandbox, PRODUCTION: production }).signIn.challenge(contextOf(wallet.platformId), {
      credentialId: wallet.credentialId,
      clientPublicKey: undefined,
    });
    expect([sandbox.sent.length, production.sent.length]).toEqual([0, 1]);
  });
});

describe('the sandbox mailbox', () => {
  it('shows a mail while its OTP is valid, and the purge job deletes it once the OTP has expired', async () => {
    const wallet = await newWallet();
    const mailbox = new SandboxMailbox(pool, 'accounts');
    const clock = createControllableClock(new Date('2030-01-01T00:00:00Z'));
    const mail = (otpCode: string, ttlMs: number): OtpMail => ({
      platformId: wallet.platformId,
      accountId: wallet.accountId,
      to: 'a@example.com',
      from: { name: 'n', address: null },
      replyTo: null,
      subject: 's',
      text: 't',
      html: 'h',
      otpCode,
      sentAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + ttlMs),
    });
    await mailbox.send(mail('111111', 60_000));
    await mailbox.send(mail('222222', 300_000));
    const job = new PurgeSandboxMailboxJob(mailbox, options, clock);
    const stored = async () =>
      (
        await pool.query<{ otp_code: string }>('SELECT otp_code FROM accounts.wallet_sandbox_mailbox WHERE account_id = $1 ORDER BY id', [
          wallet.accountId,
        ])
      ).rows.map((row) => row.otp_code);

    // Other tests' mail may share the table: the counts are at least this account's.
    await job.sweep();
    expect(await stored()).toEqual(['111111', '222222']);
    expect((await mailbox.inbox(wallet.accountId, wallet.platformId, clock.now())).map((item) => item.otpCode)).toEqual([
      '222222',
      '111111',
    ]);
    clock.advance(60_000);
    expect((await mailbox.inbox(wallet.accountId, wallet.platformId, clock.now())).map((item) => item.otpCode)).toEqual(['222222']);
    expect(await job.sweep()).toBeGreaterThanOrEqual(1);
    expect(await stored()).toEqual(['222222']);
    clock.advance(240_000);
    expect(await job.sweep()).toBeGreaterThanOrEqual(1);
    expect(await stored()).toEqual([]);
  });
});

/** A Grid-Wallet-Signature over the payload with a P-256 private key (hex), as a client makes it. */
const stampOf = (privateKeyHex: string, payload: string): string => {
  const signature = p256.sign(sha256(new TextEncoder().encode(payload)), privateKeyHex).toDERHex();
  const publicKey = Buffer.from(p256.getPublicKey(privateKeyHex, true)).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
};

describe('two revokes racing for a wallet’s last two credentials', () => {
  /** A wallet with an EMAIL_OTP and an OAUTH credential, each with an active session whose key the test holds. */
  const walletWithTwoCredentials = async () => {
    const wallet = await newWallet();
    const oauthId = newId('AuthMethod');
    const now = new Date();
    await store.insertCredential({
      id: oauthId,
      platformId: wallet.platformId,
      accountId: wallet.accountId,
      type: 'OAUTH',
      nickname: 'oauth',
      credentialId: null,
      identity: { iss: 'i', aud: 'a', sub: 's' },
      createdAt: now,
      updatedAt: now,
    });
    const sessionOf = async (credentialId: string) => {
      const key = generateP256KeyPair();
      await store.insertSession({
        id: newId('Session'),
        platformId: wallet.platformId,
        accountId: wallet.accountId,
        credentialId,
        publicKey: compressedPublicKey(key.publicKeyHex),
        createdAt: now,
        expiresAt: new Date(now.getTime() + 600_000),
        revokedAt: null,
      });
      return key.privateKeyHex;
    };
    return { ...wallet, oauthId, emailKey: await sessionOf(wallet.credentialId), oauthKey: await sessionOf(oauthId) };
  };

  it(
    'given each revoke signed by the other credential’s session and both fired at once, then one wins and the wallet keeps a ' +
      'credential (30 rounds)',
    async () => {
      const wallets = walletsWith();
      const outcomes: string[] = [];
      for (let round = 0; round < 30; round += 1) {
        const wallet = await walletWithTwoCredentials();
        const context = contextOf(wallet.platformId);
        const leg1 = async (credentialId: string) =>
          (await wallets.credentials.revoke(context, { credentialId, headers: {} })).body as unknown as {
            payloadToSign: string;
            requestId: string;
          };
        const [revokeEmail, revokeOauth] = [await leg1(wallet.credentialId), await leg1(wallet.oauthId)];
        const results = await Promise.allSettled([
          wallets.credentials.revoke(context, {
            credentialId: wallet.credentialId,
            headers: { walletSignature: stampOf(wallet.oauthKey, revokeEmail.payloadToSign), requestId: revokeEmail.requestId },
          }),
          wallets.credentials.revoke(context, {
            credentialId: wallet.oauthId,
            headers: { walletSignature: stampOf(wallet.emailKey, revokeOauth.payloadToSign), requestId: revokeOauth.requestId },
          }),
        ]);
        const codes = results
          .map((result) => (result.status === 'fulfilled' ? String(result.value.status) : (result.reason as DomainError).code))
          .sort();
        outcomes.push(codes.join(' '));
        expect((await store.credentials(wallet.accountId, wallet.platformId)).length).toBe(1);
        expect(codes.filter((code) => code === '204')).toHaveLength(1);
      }
      // The loser is refused either as the last credential (it waited on the
      // lock) or because the winner's revoke ended its signer's session.
      expect(outcomes.every((outcome) => ['204 INVALID_INPUT', '204 WALLET_SIGNATURE_INVALID'].includes(outcome))).toBe(true);
    },
  );
});

describe('a failure count under concurrent guesses', () => {
  it('given 40 attempts on one key at once, then exactly five are admitted and the rest are 429 (10 rounds)', async () => {
    for (let round = 0; round < 10; round += 1) {
      const key = `verify:${newId('AuthMethod')}`;
      const now = new Date();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, () => store.changeAttempts(key, (window) => admitAttempt(window, now))),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
      expect(
        outcomes
          .filter((outcome) => outcome.status === 'rejected')
          .every((outcome) => (outcome.reason as DomainError).code === 'RATE_LIMITED'),
      ).toBe(true);
      expect(await store.attempts(key)).toMatchObject({ failures: 5, locks: 1, lockedUntil: new Date(now.getTime() + 60_000) });
    }
  });
});

describe('a signed request whose change is refused', () => {
  it(
    'given leg 2 refused by the operation itself (the last credential), then the request is unused again and the same retry completes ' +
      'once allowed',
    async () => {
      const wallets = walletsWith();
      const wallet = await newWallet();
      const context = contextOf(wallet.platformId);
      const addOauth = async () => {
        const now = new Date();
        const id = newId('AuthMethod');
        await store.insertCredential({
          id,
          platformId: wallet.platformId,
          accountId: wallet.accountId,
          type: 'OAUTH',
          nickname: 'oauth',
          credentialId: null,
          identity: { iss: 'i', aud: 'a', sub: id },
          createdAt: now,
          updatedAt: now,
        });
        return id;
      };
      const oauthId = await addOauth();
      const revokeOauth = (await wallets.credentials.revoke(context, { credentialId: oauthId, headers: {} })).body as unknown as {
        requestId: string;
      };
      await pool.query('UPDATE accounts.auth_credentials SET revoked_at = now() WHERE id = $1', [wallet.credentialId]);
      // The sandbox signature: no session is needed to sign, only the pending request.
      const retry = () =>
        wallets.credentials.revoke(context, {
          credentialId: oauthId,
          headers: { walletSignature: 'sandbox-valid-signature', requestId: revokeOauth.requestId },
        });
      await expect(retry()).rejects.toMatchObject({ code: 'INVALID_INPUT', status: 400 });
      await addOauth();
      expect((await retry()).status).toBe(204);
      expect(await store.credential(oauthId, wallet.platformId)).toBeNull();
      expect((await store.pending(revokeOauth.requestId))?.usedAt).toEqual(expect.any(Date));
    },
  );

  it('given a downstream refusal reported by the gateway, then only requests completed downstream are given back', async () => {
    const wallets = walletsWith();
    const wallet = await newWallet();
    const context = contextOf(wallet.platformId);
    const first = (
      await wallets.emailChange.authorize(
        context,
        parseAuthorizeEmailChange({ customerId: wallet.customerId, body: { customerType: 'INDIVIDUAL', email: 'moved@example.com' } }),
      )
    ).body as unknown as { requestId: string };
    const authorized = await wallets.emailChange.authorize(
      context,
      parseAuthorizeEmailChange({
        customerId: wallet.customerId,
        body: { customerType: 'INDIVIDUAL', email: 'moved@example.com' },
        walletSignature: 'sandbox-valid-signature',
        requestId: first.requestId,
      }),
    );
    expect(authorized).toEqual({ status: 200, body: { proceed: true, consumedRequestId: first.requestId } });
    expect(await wallets.signedRequests.release(context, first.requestId)).toEqual({ released: true });
    expect(await wallets.signedRequests.release(context, first.requestId)).toEqual({ released: false });
    expect(await wallets.signedRequests.release(contextOf(newPlatformId()), first.requestId)).toEqual({ released: false });
    const exportCommand = parseExportWallet({ accountId: wallet.accountId, body: { clientPublicKey: generateP256KeyPair().publicKeyHex } });
    const exported = (await wallets.keys.export(context, exportCommand)).body as unknown as { requestId: string };
    await pool.query('UPDATE accounts.wallet_pending_requests SET used_at = now() WHERE request_id = $1', [exported.requestId]);
    expect(await wallets.signedRequests.release(context, exported.requestId)).toEqual({ released: false });
  });
});

describe('production OTP mail through a real SMTP relay', () => {
  const refusing = new Set<string>();
  const signer = bundleSigningKeyOf(generateP256KeyPair().privateKeyHex);
  let relay: TestSmtpServer;
  let smtp: SmtpMailer;

  beforeAll(async () => {
    relay = await startTestSmtpServer({ refuseRecipient: (address) => refusing.has(address) });
    smtp = new SmtpMailer({
      host: '127.0.0.1',
      port: relay.port,
      secure: false,
      requireTls: false,
      auth: null,
      from: { name: '', address: 'otp@corridor.test' },
      timeoutMs: 5_000,
    });
  });

  afterAll(async () => {
    smtp?.onApplicationShutdown();
    await relay?.close();
  });

  const productionWallets = (metrics: OtpMailMetrics) =>
    walletsWith({ SANDBOX: recordingMailer(), PRODUCTION: smtp }, systemClock, metrics, { ...options, exportSigningKey: signer });

  /** A production wallet whose platform brands its OTP mail. */
  const brandedWallet = async () => {
    // A customer id is no local part (its colon reads as an address group): a real address, as a customer has.
    const email = `wallet.${randomBytes(6).toString('hex')}@example.com`;
    const wallet = await newWallet('PRODUCTION', () => email);
    const branding = {
      appName: 'Live Wallet',
      otpLength: 8,
      sendFromEmailAddress: 'noreply@live.test',
      sendFromEmailSenderName: 'Live Notifications',
      replyToEmailAddress: 'help@live.test',
    };
    await store.upsertPlatform({ platformId: wallet.platformId, environment: 'PRODUCTION', enabled: true, config: branding });
    return { ...wallet, email };
  };

  /** The code of the newest mail to the address, read as a person would: the line of 8 digits. */
  const codeIn = (text: string): string => text.split('\n').find((line) => /^\d{8}$/.test(line)) ?? '';

  /** The verify body of an EMAIL_OTP: the code and the TEK sealed to the challenge's target, as a client makes it. */
  const verifyBody = async (bundle: string, code: string, tek: { publicKeyHex: string }): Promise<Record<string, unknown>> => {
    const { targetPublic } = JSON.parse(Buffer.from((JSON.parse(bundle) as { data: string }).data, 'hex').toString()) as {
      targetPublic: string;
    };
    const sealed = await hpkeSeal(targetPublic, new TextEncoder().encode(JSON.stringify({ otp_code: code, public_key: tek.publicKeyHex })));
    return {
      type: 'EMAIL_OTP',
      encryptedOtpBundle: JSON.stringify({ encappedPublic: toHex(sealed.enc), ciphertext: toHex(sealed.ciphertext) }),
    };
  };

  it(
    'given a production platform, when a credential is challenged, then the OTP arrives by SMTP as the platform brands it, and the ' +
      'code read from the mail opens a session',
    async () => {
      const metrics = new OtpMailMetrics();
      const wallets = productionWallets(metrics);
      const wallet = await brandedWallet();
      const reply = await wallets.signIn.challenge(contextOf(wallet.platformId), {
        credentialId: wallet.credentialId,
        clientPublicKey: undefined,
      });
      expect(JSON.parse(reply.otpEncryptionTargetBundle!)).toMatchObject({
        enclaveQuorumPublic: signer.publicKeyHex,
        dataSignature: expect.stringMatching(/^30/),
      });

      const mail = await relay.mailTo(wallet.email);
      expect(mail.envelope.from).toBe('otp@corridor.test');
      expect(mail.headers).toMatchObject({
        from: 'Live Notifications <noreply@live.test>',
        'reply-to': 'help@live.test',
        subject: 'Live Wallet sign-in code',
      });
      const code = codeIn(mail.text);
      expect(code).toMatch(/^\d{8}$/);

      const tek = generateP256KeyPair();
      const body = await verifyBody(reply.otpEncryptionTargetBundle!, code, tek);
      const leg1 = await wallets.signIn.verify(
        contextOf(wallet.platformId),
        parseVerifyCredential({ credentialId: wallet.credentialId, body }),
      );
      expect(leg1.status).toBe(202);
      const challenge = leg1.body as { payloadToSign: string; requestId: string };
      const leg2 = await wallets.signIn.verify(
        contextOf(wallet.platformId),
        parseVerifyCredential({
          credentialId: wallet.credentialId,
          body,
          walletSignature: stampOf(tek.privateKeyHex, challenge.payloadToSign),
          requestId: challenge.requestId,
        }),
      );
      expect(leg2).toMatchObject({
        status: 200,
        body: { id: expect.stringMatching(/^Session:/), type: 'EMAIL_OTP', accountId: wallet.accountId },
      });
      expect(await metrics.registry.getSingleMetricAsString('corridor_embedded_wallet_otp_mails_total')).toContain(
        'environment="PRODUCTION",outcome="sent",reason=""} 1',
      );
    },
  );

  it(
    'given a relay that refuses the address, then 503 EMAIL_DELIVERY_FAILED with the reason, counted, and the code mailed before still ' +
      'verifies',
    async () => {
      const metrics = new OtpMailMetrics();
      const wallets = productionWallets(metrics);
      const wallet = await brandedWallet();
      const first = await wallets.signIn.challenge(contextOf(wallet.platformId), {
        credentialId: wallet.credentialId,
        clientPublicKey: undefined,
      });
      const code = codeIn((await relay.mailTo(wallet.email)).text);

      refusing.add(wallet.email);
      await expect(
        wallets.signIn.challenge(contextOf(wallet.platformId), { credentialId: wallet.credentialId, clientPublicKey: undefined }),
      ).rejects.toMatchObject({
        code: 'EMAIL_DELIVERY_FAILED',
        status: 503,
        message: expect.stringContaining('check the customer'),
        details: { reason: 'recipient' },
      });
      expect(await metrics.registry.getSingleMetricAsString('corridor_embedded_wallet_otp_mails_total')).toContain(
        'environment="PRODUCTION",outcome="failed",reason="recipient"} 1',
      );
      // The failed send stored nothing: the OTP of the mail that did arrive is still the credential's.
      const body = await verifyBody(first.otpEncryptionTargetBundle!, code, generateP256KeyPair());
      expect(
        (await wallets.signIn.verify(contextOf(wallet.platformId), parseVerifyCredential({ credentialId: wallet.credentialId, body })))
          .status,
      ).toBe(202);
    },
  );
});
