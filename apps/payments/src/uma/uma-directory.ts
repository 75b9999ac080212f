import {
  type CurrencyPreferenceWire,
  currencyOf,
  decodeCursor,
  DomainError,
  encodeCursor,
  invalidInput,
  isSupportedCurrency,
  type ListUmaProvidersData,
  type Page,
  parseUmaAddress,
  type PayerDataField,
  SANDBOX_UMA_DOMAIN,
  type UmaProviderWire,
} from '@corridor/contracts';

// The UMA counterparties this deployment knows: a fixed sandbox directory of providers (by
// domain) and the reference's sandbox receivers at sandbox.uma.money. A deployment that talks to
// real UMA VASPs replaces this file's lookups with LNURLP requests; everything downstream (the
// lookup stream, quotes citing a lookupId) stays as it is. Pure: no I/O.

export type UmaProvider = {
  name: string;
  domain: string;
  regions: readonly string[];
  currencies: readonly string[];
  lei?: string;
  /** On the deployment's allowlist; providers off it are listed unless hasBlockedProviders=false. */
  allowed: boolean;
};

export const umaProviders: readonly UmaProvider[] = [
  {
    name: 'Sandbox UMA',
    domain: SANDBOX_UMA_DOMAIN,
    regions: ['US', 'MX', 'DE', 'FR', 'ES'],
    currencies: ['USD', 'EUR', 'MXN'],
    allowed: true,
  },
  {
    name: 'Andes Pay',
    domain: 'andespay.example',
    regions: ['BR'],
    currencies: ['BRL', 'USD'],
    lei: '5493001KJTIIGC8Y1R12',
    allowed: true,
  },
  { name: 'Bayani Wallet', domain: 'bayani.example', regions: ['PH'], currencies: ['PHP', 'USD'], allowed: true },
  { name: 'Ganga Remit', domain: 'gangaremit.example', regions: ['IN'], currencies: ['INR'], lei: '335800ZWZ1KG5RMAVA29', allowed: true },
  { name: 'Lagos Ledger', domain: 'lagosledger.example', regions: ['NG'], currencies: ['NGN', 'USD'], allowed: false },
  { name: 'Maple Money', domain: 'maplemoney.example', regions: ['CA'], currencies: ['CAD', 'USD'], allowed: true },
  { name: 'Thames Transfer', domain: 'thames.example', regions: ['GB', 'IE'], currencies: ['GBP', 'EUR'], allowed: true },
  { name: 'Zocalo Pagos', domain: 'zocalo.example', regions: ['MX'], currencies: ['MXN', 'USD'], allowed: false },
];

/** success.usd, pending.long.usd, fail.compliance.usd, non.existent.usd … as the reference documents them. */
const SANDBOX_USER = /^(success|pending\.long|fail\.compliance|non\.existent)\.([a-z]{3,5})$/;

export type UmaReceiver = { currencies: string[]; requiredPayerDataFields: PayerDataField[] };

export const umaNotFound = (address: string, why: string): DomainError =>
  new DomainError('UMA_NOT_FOUND', 'not_found', `No receiver answers at ${address}: ${why}`, { receiverUmaAddress: address });

/**
 * Who receives at an UMA address and in which currencies. The sandbox domain answers only its
 * documented users (their currency is in the name; $non.existent… is not found); a provider of
 * the directory answers for any user in its currencies and asks for the payer's full name; any
 * other domain is not found.
 */
export const umaReceiverAt = (address: string, providers: readonly UmaProvider[] = umaProviders): UmaReceiver => {
  const parts = parseUmaAddress(address);
  if (!parts)
    throw new DomainError(
      'INVALID_UMA_ADDRESS',
      'validation',
      `receiverUmaAddress must be an UMA address like $alice@example.com, got ${JSON.stringify(address.slice(0, 80))}.`,
      { field: 'receiverUmaAddress' },
    );
  if (parts.domain === SANDBOX_UMA_DOMAIN) {
    const sandbox = SANDBOX_USER.exec(parts.user.toLowerCase());
    const currency = sandbox?.[2]?.toUpperCase();
    if (!sandbox || sandbox[1] === 'non.existent' || !currency || !isSupportedCurrency(currency)) {
      throw umaNotFound(
        address,
        `the sandbox has $success.<currency>, $pending.long.<currency> and $fail.compliance.<currency> at ${SANDBOX_UMA_DOMAIN}, with ` +
          `currency usd, eur or mxn.`,
      );
    }
    return { currencies: [currency], requiredPayerDataFields: [{ name: 'FULL_NAME', mandatory: false }] };
  }
  const provider = providers.find((candidate) => candidate.domain === parts.domain);
  if (!provider)
    throw umaNotFound(address, `no UMA provider is known at ${parts.domain}. GET /uma-providers lists the domains that can be paid.`);
  return {
    currencies: provider.currencies.filter(isSupportedCurrency),
    requiredPayerDataFields: [
      { name: 'FULL_NAME', mandatory: true },
      { name: 'COUNTRY_OF_RESIDENCE', mandatory: false },
    ],
  };
};

/** What a lookup stores per currency: the estimate from USD and the limits, as decimal strings. */
export type CurrencyPreferenceRecord = { code: string; estimatedExchangeRate: string; min: string; max: string };

export const toCurrencyPreferenceWire = (record: CurrencyPreferenceRecord): CurrencyPreferenceWire => ({
  currency: currencyOf(record.code),
  estimatedExchangeRate: Number(record.estimatedExchangeRate),
  min: Number(record.min),
  max: Number(record.max),
});

// ---------------------------------------------------------------------------------------------
// GET /uma-providers

const toProviderWire = (provider: UmaProvider): UmaProviderWire => ({
  name: provider.name,
  domain: provider.domain,
  supportedRegions: [...provider.regions],
  supportedCurrencies: provider.currencies.filter(isSupportedCurrency).map(currencyOf),
  logoUrl: `https://${provider.domain}/.well-known/uma-logo.png`,
  ...(provider.lei !== undefined ? { lei: provider.lei } : {}),
  allowListStatus: provider.allowed,
});

/** Filters, then keyset pages on the provider's name (unique), newest-first's analogue: desc by default. */
export const listUmaProviders = (query: ListUmaProvidersData, providers: readonly UmaProvider[] = umaProviders): Page<UmaProviderWire> => {
  if (query.currencyCode !== undefined && !isSupportedCurrency(query.currencyCode)) {
    throw invalidInput(
      `currencyCode ${JSON.stringify(query.currencyCode)} is not a currency Corridor exchanges; use a code such as USD, EUR or MXN.`,
      { field: 'currencyCode' },
    );
  }
  const descending = (query.sortOrder ?? 'desc') === 'desc';
  const matching = providers
    .filter((provider) => query.countryCode === undefined || provider.regions.includes(query.countryCode))
    .filter((provider) => query.currencyCode === undefined || provider.currencies.includes(query.currencyCode))
    .filter((provider) => query.hasBlockedProviders !== false || provider.allowed)
    .sort((left, right) => (descending ? right.name.localeCompare(left.name, 'en') : left.name.localeCompare(right.name, 'en')));
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor).id;
  const start =
    after === undefined
      ? 0
      : matching.filter((provider) =>
          descending ? provider.name.localeCompare(after, 'en') >= 0 : provider.name.localeCompare(after, 'en') <= 0,
        ).length;
  const page = matching.slice(start, start + query.limit);
  const hasMore = start + query.limit < matching.length;
  const last = page[page.length - 1];
  return {
    data: page.map(toProviderWire),
    hasMore,
    ...(hasMore && last ? { nextCursor: encodeCursor({ createdAt: new Date(0).toISOString(), id: last.name }) } : {}),
    totalCount: matching.length,
  };
};
