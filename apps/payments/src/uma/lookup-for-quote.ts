import { invalidInput } from '@corridor/contracts';
import type { ReceiverLookupRecord } from './receiver-lookup';

// A quote that cites a lookupId is held to what that lookup found: the lookup must exist on the
// quoting platform, not have expired (on the quote's clock), be a lookup of this very destination,
// support the currency the quote pays in. The payer data fields the receiver made mandatory are
// checked with the corridor's (payer-fields.ts). POST /quotes declares no 404, so an
// unknown lookup is a 400 naming lookupId, the same answer for another platform's lookup. Pure.

export type QuoteLookupContext = { lookupId: string; platformId: string; now: Date };

export const usableLookup = (record: ReceiverLookupRecord | null, context: QuoteLookupContext): ReceiverLookupRecord => {
  if (!record || record.platformId !== context.platformId) {
    throw invalidInput(
      `lookupId ${context.lookupId} is not a lookup of this platform. Look the receiver up first (GET /receiver/uma/{address} or GET ` +
        `/receiver/external-account/{id}) and pass its lookupId.`,
      { field: 'lookupId' },
    );
  }
  if (context.now.getTime() >= Date.parse(record.expiresAt)) {
    throw invalidInput(`lookupId ${context.lookupId} expired at ${record.expiresAt}; look the receiver up again.`, {
      field: 'lookupId',
      expiredAt: record.expiresAt,
    });
  }
  return record;
};

const currencyFrom = (record: ReceiverLookupRecord, requested: string | undefined, field: string): string => {
  const supported = record.supportedCurrencies.map((preference) => preference.code);
  if (requested !== undefined) {
    if (!supported.includes(requested))
      throw invalidInput(`The receiver of lookup ${record.lookupId} accepts ${supported.join(', ')}, not ${requested}.`, { field });
    return requested;
  }
  if (supported.length > 1) throw invalidInput(`The receiver accepts ${supported.join(', ')}: set ${field} to one of them.`, { field });
  return supported[0] ?? '';
};

/** The UMA destination a lookup vouches for, in the currency the quote asks (or the only one offered). */
export const umaDestinationFromLookup = (
  record: ReceiverLookupRecord,
  umaAddress: string,
  requestedCurrency: string | undefined,
): { umaAddress: string; currency: string } => {
  if (record.kind !== 'UMA' || record.receiverUmaAddress?.toLowerCase() !== umaAddress.toLowerCase()) {
    throw invalidInput(
      `lookupId ${record.lookupId} is a lookup of ${record.receiverUmaAddress ?? record.accountId}, not of ${umaAddress}.`,
      { field: 'lookupId' },
    );
  }
  return { umaAddress, currency: currencyFrom(record, requestedCurrency, 'destination.currency') };
};

/** An external account destination must be the one the lookup was of, in a currency it supports. */
export const checkAccountLookup = (record: ReceiverLookupRecord, accountId: string, currency: string): void => {
  if (record.kind !== 'EXTERNAL_ACCOUNT' || record.accountId !== accountId) {
    throw invalidInput(
      `lookupId ${record.lookupId} is a lookup of ${record.receiverUmaAddress ?? record.accountId}, not of ${accountId}.`,
      { field: 'lookupId' },
    );
  }
  currencyFrom(record, currency, 'destination.accountId');
};

/** The least and most the lookup said the receiver accepts in `currency`, in its minor units. */
export const receivingLimitsOf = (record: ReceiverLookupRecord, currency: string): { min: bigint; max: bigint } | undefined => {
  const preference = record.supportedCurrencies.find((candidate) => candidate.code === currency);
  return preference ? { min: BigInt(preference.min), max: BigInt(preference.max) } : undefined;
};
