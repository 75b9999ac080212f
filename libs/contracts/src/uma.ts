import { DomainError } from './errors';
import type { Currency } from './money';

// UMA addresses, receiver lookups, UMA providers and discoveries: NATS message data of the
// payments service and the reference's wire objects (ReceiverUmaLookupResponse,
// ReceiverExternalAccountLookupResponse, UmaProvider, DiscoveryListResponse).

/** `$name@domain.tld`: the user part as UMA allows it, then a domain of at least two labels. */
const UMA_ADDRESS = /^\$([A-Za-z0-9._+-]{1,64})@([A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+)$/;
export const UMA_ADDRESS_MAX_LENGTH = 255;

export type UmaAddressParts = { user: string; domain: string };

/** The user and domain of a well-formed UMA address (domain lower-cased), or null. */
export const parseUmaAddress = (value: unknown): UmaAddressParts | null => {
  if (typeof value !== 'string' || value.length > UMA_ADDRESS_MAX_LENGTH) return null;
  const match = UMA_ADDRESS.exec(value);
  return match ? { user: match[1] ?? '', domain: (match[2] ?? '').toLowerCase() } : null;
};

export const isUmaAddress = (value: unknown): value is string => parseUmaAddress(value) !== null;

/** 400 INVALID_UMA_ADDRESS naming the field, with the shape a client should send. */
export const invalidUmaAddress = (field: string, value: unknown): DomainError =>
  new DomainError(
    'INVALID_UMA_ADDRESS',
    'validation',
    `${field} must be an UMA address like $alice@example.com, got ${JSON.stringify(String(value).slice(0, 80))}.`,
    { field },
  );

/** The domain of the reference's sandbox receivers ($success.usd@…, $pending.long.usd@…, …). */
export const SANDBOX_UMA_DOMAIN = 'sandbox.uma.money';

// ---------------------------------------------------------------------------------------------
// Receiver lookups

export type LookupSender = { senderUmaAddress?: string; customerId?: string };
export type LookupUmaData = LookupSender & { receiverUmaAddress: string };
export type LookupExternalAccountData = LookupSender & { accountId: string };

/** name: a CustomerInfoFieldName of the reference (FULL_NAME, BIRTH_DATE, COUNTRY_OF_RESIDENCE, …). */
export type PayerDataField = { name: string; mandatory: boolean };

export type CurrencyPreferenceWire = { currency: Currency; estimatedExchangeRate: number; min: number; max: number };

export type ReceiverLookupWire = {
  lookupId: string;
  supportedCurrencies: CurrencyPreferenceWire[];
  requiredPayerDataFields?: PayerDataField[];
};
export type ReceiverUmaLookupWire = ReceiverLookupWire & { receiverUmaAddress: string };
export type ReceiverExternalAccountLookupWire = ReceiverLookupWire & { accountId: string };

// ---------------------------------------------------------------------------------------------
// UMA providers and discoveries

export type ListUmaProvidersData = {
  countryCode?: string;
  currencyCode?: string;
  /** Default true: providers off the allowlist are listed too. */
  hasBlockedProviders?: boolean;
  sortOrder?: 'asc' | 'desc';
  limit: number;
  cursor?: string;
};

export type UmaProviderWire = {
  name: string;
  domain: string;
  supportedRegions: string[];
  supportedCurrencies: Currency[];
  logoUrl: string;
  lei?: string;
  allowListStatus: boolean;
};

export type ListDiscoveriesData = { country?: string; currency?: string };
export type DiscoveryWire = { bankName: string; displayName: string; country: string; currency: string };
