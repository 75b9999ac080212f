// Who answers at an UMA address (the reference's sandbox users, the directory's providers), the
// estimate a lookup shows, and GET /uma-providers' filters and keyset paging.
import { DomainError } from '@corridor/contracts';
import { snapshotOf } from '../exchange-rates/rate-provider';
import { sandboxUsdPrices } from '../pricing/sandbox-rates';
import { currencyPreferencesOf } from './receiver-pricing';
import { listUmaProviders, umaReceiverAt } from './uma-directory';

const refused = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('Expected a refusal.');
};

describe('umaReceiverAt', () => {
  it.each([
    ['$success.usd@sandbox.uma.money', 'USD'],
    ['$success.eur@sandbox.uma.money', 'EUR'],
    ['$success.mxn@sandbox.uma.money', 'MXN'],
    ['$pending.long.usd@sandbox.uma.money', 'USD'],
    ['$fail.compliance.usd@sandbox.uma.money', 'USD'],
    ['$Success.EUR@Sandbox.UMA.money', 'EUR'],
  ])('answers for the sandbox user %s in %s', (address, currency) => expect(umaReceiverAt(address).currencies).toEqual([currency]));

  it.each(['$non.existent.usd@sandbox.uma.money', '$someone@sandbox.uma.money', '$success.xyz@sandbox.uma.money', '$a@nowhere.example'])(
    'finds nobody at %s (404 UMA_NOT_FOUND)',
    (address) => {
      const error = refused(() => umaReceiverAt(address));
      expect([error.code, error.status]).toEqual(['UMA_NOT_FOUND', 404]);
    },
  );

  it('answers for any user of a directory provider, in its currencies, asking for the payer’s name', () => {
    expect(umaReceiverAt('$anyone@thames.example')).toEqual({
      currencies: ['GBP', 'EUR'],
      requiredPayerDataFields: [
        { name: 'FULL_NAME', mandatory: true },
        { name: 'COUNTRY_OF_RESIDENCE', mandatory: false },
      ],
    });
  });

  it('refuses a malformed address with 400 INVALID_UMA_ADDRESS', () =>
    expect(refused(() => umaReceiverAt('alice@thames.example')).code).toBe('INVALID_UMA_ADDRESS'));
});

describe('currencyPreferencesOf', () => {
  it('estimates from USD at the mid rate, with the sandbox limits in the currency’s minor units', () => {
    const snapshot = snapshotOf(sandboxUsdPrices, new Date('2026-03-01T00:00:00Z'));
    expect(currencyPreferencesOf(snapshot, ['USD', 'EUR', 'BTC', 'XYZ'])).toEqual([
      { code: 'USD', estimatedExchangeRate: '1', min: '100', max: '1000000000' },
      { code: 'EUR', estimatedExchangeRate: '1.08', min: '100', max: '1000000000' },
      { code: 'BTC', estimatedExchangeRate: '65000', min: '2000', max: '15000000000' },
    ]);
  });
});

describe('listUmaProviders', () => {
  it('sorts by name, descending by default, and pages without gaps or repeats', () => {
    const all = listUmaProviders({ limit: 100 }).data.map((provider) => provider.name);
    expect(all).toEqual([...all].sort().reverse());
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = listUmaProviders({ limit: 3, sortOrder: 'asc', ...(cursor ? { cursor } : {}) });
      expect(page.totalCount).toBe(all.length);
      paged.push(...page.data.map((provider) => provider.name));
      cursor = page.nextCursor;
      expect(page.hasMore).toBe(cursor !== undefined);
    } while (cursor);
    expect(paged).toEqual([...all].reverse());
  });

  it('filters by country, currency and allowlist', () => {
    const domains = (query: Parameters<typeof listUmaProviders>[0]) => listUmaProviders(query).data.map((provider) => provider.domain);
    expect(domains({ limit: 100, countryCode: 'NG' })).toEqual(['lagosledger.example']);
    expect(domains({ limit: 100, countryCode: 'NG', hasBlockedProviders: false })).toEqual([]);
    expect(domains({ limit: 100, currencyCode: 'GBP' })).toEqual(['thames.example']);
  });

  it('refuses a currency it does not know, and a cursor it did not make', () => {
    expect(refused(() => listUmaProviders({ limit: 10, currencyCode: 'XYZ' })).details).toEqual({ field: 'currencyCode' });
    expect(refused(() => listUmaProviders({ limit: 10, cursor: 'nonsense' })).details).toEqual({ field: 'cursor' });
  });
});
