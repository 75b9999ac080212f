import { type DiscoveryWire, invalidInput, isSupportedCurrency, type ListDiscoveriesData } from '@corridor/contracts';

// The receiving institutions this deployment pays out to, per country and currency: the values a
// platform passes as bankName when it adds an external account. A fixed sandbox table (a real
// deployment loads its payout partners' lists); pure.

const institutions: readonly DiscoveryWire[] = (
  [
    ['PH', 'PHP', 'BDO Unibank', 'BDO Unibank'],
    ['PH', 'PHP', 'BPI', 'Bank of the Philippine Islands'],
    ['PH', 'PHP', 'GCash', 'GCash'],
    ['PH', 'PHP', 'Metrobank', 'Metropolitan Bank and Trust Company'],
    ['MX', 'MXN', 'BBVA Mexico', 'BBVA México'],
    ['MX', 'MXN', 'Banorte', 'Banco Mercantil del Norte'],
    ['MX', 'MXN', 'Santander Mexico', 'Banco Santander México'],
    ['BR', 'BRL', 'Itau Unibanco', 'Itaú Unibanco'],
    ['BR', 'BRL', 'Nubank', 'Nu Pagamentos'],
    ['IN', 'INR', 'HDFC Bank', 'HDFC Bank'],
    ['IN', 'INR', 'State Bank of India', 'State Bank of India'],
    ['NG', 'NGN', 'Access Bank', 'Access Bank'],
    ['NG', 'NGN', 'GTBank', 'Guaranty Trust Bank'],
    ['GB', 'GBP', 'Barclays', 'Barclays Bank UK'],
    ['GB', 'GBP', 'Monzo', 'Monzo Bank'],
    ['DE', 'EUR', 'Deutsche Bank', 'Deutsche Bank'],
    ['FR', 'EUR', 'BNP Paribas', 'BNP Paribas'],
    ['ES', 'EUR', 'Banco Santander', 'Banco Santander'],
    ['US', 'USD', 'Chase', 'JPMorgan Chase Bank'],
    ['US', 'USD', 'Bank of America', 'Bank of America'],
    ['CA', 'CAD', 'RBC', 'Royal Bank of Canada'],
    ['AE', 'AED', 'Emirates NBD', 'Emirates NBD Bank'],
  ] as const
).map(([country, currency, bankName, displayName]) => ({ bankName, displayName, country, currency }));

/** With country and/or currency, the institutions matching both; with neither, all of them. */
export const listDiscoveries = (query: ListDiscoveriesData, table: readonly DiscoveryWire[] = institutions): { data: DiscoveryWire[] } => {
  if (query.currency !== undefined && !isSupportedCurrency(query.currency)) {
    throw invalidInput(
      `currency ${JSON.stringify(query.currency)} is not a currency Corridor pays out in; use a code such as PHP, MXN or EUR.`,
      { field: 'currency' },
    );
  }
  return {
    data: table.filter(
      (institution) =>
        (query.country === undefined || institution.country === query.country) &&
        (query.currency === undefined || institution.currency === query.currency),
    ),
  };
};
