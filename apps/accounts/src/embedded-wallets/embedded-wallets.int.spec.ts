// The Embedded Wallet tables against real PostgreSQL: what the wallet policy stores of a platform
// whichever of its events comes first, and the service's answer to a row no rule expects.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Pool } from 'pg';
import { DomainError, newId, type PlatformConfigWire, type RequestContext, systemClock } from '@corridor/contracts';
import { ensureEventStoreSchema, migrate } from '@corridor/event-store';
import type { ServiceClient } from '@corridor/messaging';
import { useTestDatabase } from '@corridor/testing';
import { EmbeddedWallets, type WalletOptions } from './embedded-wallets.service';
import { OpenWalletsPolicy } from './open-wallets.policy';
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
const options: WalletOptions = { keyEncryptionKey: randomBytes(32), sessionTtlSeconds: 900, oidcIssuers: [], webAuthn: { rpIds: ['localhost'], origins: ['http://localhost:3000'] } };
const contextOf = (platformId: string): RequestContext => ({ platformId, actor: { kind: 'token', tokenId: 'ApiToken:1' }, requestId: newId('Request'), correlationId: 'int' });

/** A sandbox platform with wallets, and one wallet with its EMAIL_OTP credential. */
const newWallet = async (): Promise<{ platformId: string; accountId: string; customerId: string; credentialId: string }> => {
  const platformId = newPlatformId();
  await store.upsertPlatform({ platformId, environment: 'SANDBOX', enabled: true, config: {} });
  const customerId = newId('Customer');
  const accountId = newId('InternalAccount');
  const credentialId = newId('AuthMethod');
  await store.upsertCustomer(customerId, platformId, `${customerId}@example.com`);
  await store.provisionWallet({ accountId, platformId, customerId, sealedMnemonic: 'sealed', credentialId, email: `${customerId}@example.com`, now: new Date() });
  return { platformId, accountId, customerId, credentialId };
};

describe('a platform’s environment, whichever event comes first', () => {
  /** The platform service as the policy asks it: environments it knows, 404 for the others. */
  const environments = new Map<string, 'SANDBOX' | 'PRODUCTION'>();
  const lookups: string[] = [];
  const platformService = {
    request: async (subject: string, _data: unknown, options: { context: { platformId: string } }): Promise<Partial<PlatformConfigWire>> => {
      lookups.push(subject);
      const environment = environments.get(options.context.platformId);
      if (!environment) throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Platform ${options.context.platformId} does not exist.`);
      return { platformId: options.context.platformId, environment };
    },
  } as unknown as ServiceClient;
  const unused = {} as never;
  const policy = (): OpenWalletsPolicy => new OpenWalletsPolicy(unused, store, unused, unused, unused, systemClock, platformService);
  const created = (platformId: string, environment: string) => ({ platformId: '', data: { platformId, environment, settings: {} } });
  const configured = (platformId: string) => ({ platformId, data: { platformId, changes: { embeddedWalletConfig: { appName: 'Early' } } } });

  it.each(['SANDBOX', 'PRODUCTION'] as const)('given PlatformConfigUpdated before PlatformCreated, then the %s environment is stored from the first event on', async (environment) => {
    const platformId = newPlatformId();
    environments.set(platformId, environment);
    await policy().handlePlatformEvent(configured(platformId), 'msg-1');
    expect(await store.platform(platformId)).toEqual({ platformId, environment, enabled: true, config: { appName: 'Early' } });
    await policy().handlePlatformEvent(created(platformId, environment), 'msg-2');
    expect(await store.platform(platformId)).toEqual({ platformId, environment, enabled: true, config: { appName: 'Early' } });
  });

  it('given PlatformCreated first, then the platform service is not asked', async () => {
    const platformId = newPlatformId();
    lookups.length = 0;
    await policy().handlePlatformEvent(created(platformId, 'SANDBOX'), 'msg-1');
    await policy().handlePlatformEvent(configured(platformId), 'msg-2');
    expect(await store.platform(platformId)).toEqual({ platformId, environment: 'SANDBOX', enabled: true, config: { appName: 'Early' } });
    expect(lookups).toEqual([]);
  });

  it('given a config event for a platform the platform service does not know yet, then it fails (and is redelivered) and stores nothing', async () => {
    const platformId = newPlatformId();
    await expect(policy().handlePlatformEvent(configured(platformId), 'msg-1')).rejects.toMatchObject({ code: 'REFERENCE_NOT_FOUND' });
    expect(await store.platform(platformId)).toBeNull();
  });
});

describe('a credential row of a type no rule knows', () => {
  it('given a stored type other than OAUTH, EMAIL_OTP and PASSKEY, when it is verified, then it fails loudly instead of answering a 400', async () => {
    const wallet = await newWallet();
    const id = newId('AuthMethod');
    await pool.query(`INSERT INTO accounts.auth_credentials (id, platform_id, account_id, type, nickname, created_at, updated_at) VALUES ($1, $2, $3, 'SMS', 'phone', now(), now())`, [id, wallet.platformId, wallet.accountId]);
    const verified = new EmbeddedWallets(store, options, systemClock).verify(contextOf(wallet.platformId), id, { type: 'SMS' }, {});
    await expect(verified).rejects.toThrow(`Credential ${id} is stored with type SMS, which no verify handles.`);
    await expect(verified).rejects.not.toBeInstanceOf(DomainError);
  });
});
