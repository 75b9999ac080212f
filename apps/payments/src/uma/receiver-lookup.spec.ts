// A lookup is recorded once with its expiry from the command's clock; a quote citing it is held to
// it: same platform, not expired, the same destination, a supported currency, the mandatory payer
// data present.
import { DomainError } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { checkAccountLookup, umaDestinationFromLookup, usableLookup } from './lookup-for-quote';
import {
  type ReceiverLookup,
  type ReceiverLookupEvent,
  receiverLookupDecider,
  type ReceiverLookupRecord,
  type RecordLookup,
  recordLookup,
} from './receiver-lookup';

const platformId = 'Platform:0196f1a0-0000-7000-8000-000000000001';
const lookupId = 'Lookup:0196f1a0-0000-7000-8000-0000000000aa';
const now = new Date('2026-03-01T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);

const found = {
  lookupId,
  platformId,
  kind: 'UMA' as const,
  receiverUmaAddress: '$maria@bayani.example',
  senderUmaAddress: '$alice@acme.example',
  supportedCurrencies: [
    { code: 'PHP', estimatedExchangeRate: '0.0175', min: '6000', max: '60000000000' },
    { code: 'USD', estimatedExchangeRate: '1', min: '100', max: '1000000000' },
  ],
  requiredPayerDataFields: [
    { name: 'FULL_NAME', mandatory: true },
    { name: 'COUNTRY_OF_RESIDENCE', mandatory: false },
  ],
};
const command = (lookup: RecordLookup['data']['lookup'] = found): RecordLookup => ({
  type: 'RecordLookup',
  data: { lookup },
  metadata: { now, ttlSeconds: 600 },
});
const record: ReceiverLookupRecord = { ...found, createdAt: '2026-03-01T10:00:00.000Z', expiresAt: '2026-03-01T10:10:00.000Z' };

const spec = deciderSpec<ReceiverLookup, RecordLookup, ReceiverLookupEvent>({ decide: recordLookup, ...receiverLookupDecider });
const refused = (run: () => unknown): DomainError => {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('Expected a refusal.');
};

describe('RecordLookup', () => {
  it('records what the receiver accepts, expiring after the TTL', () =>
    spec
      .given([])
      .when(command())
      .then([{ type: 'ReceiverLookedUp', data: { lookup: record } }]));
  it('refuses a receiver that accepts nothing this deployment sends', () =>
    spec
      .given([])
      .when(command({ ...found, supportedCurrencies: [] }))
      .thenThrows((error) => expect(error.code).toBe('UMA_NOT_FOUND')));
  it('never records one lookup id twice', () =>
    spec
      .given([{ type: 'ReceiverLookedUp', data: { lookup: record } }])
      .when(command())
      .thenThrows((error) => expect(error.code).toBe('CONFLICT')));
});

describe('a quote citing a lookup', () => {
  const context = (overrides: Partial<Parameters<typeof usableLookup>[1]> = {}) => ({
    lookupId,
    platformId,
    now: later(60_000),
    senderCustomerInfo: { FULL_NAME: 'Alice' },
    ...overrides,
  });

  it('accepts the lookup of its platform until the last millisecond before it expires', () => {
    expect(usableLookup(record, context({ now: later(599_999) }))).toBe(record);
    expect(refused(() => usableLookup(record, context({ now: later(600_000) }))).details).toMatchObject({
      field: 'lookupId',
      expiredAt: record.expiresAt,
    });
  });

  it('treats another platform’s lookup as an unknown one', () => {
    const unknown = refused(() => usableLookup(null, context())).message;
    const foreign = refused(() => usableLookup(record, context({ platformId: 'Platform:0196f1a0-0000-7000-8000-000000000002' })));
    expect([foreign.code, foreign.details?.['field'], foreign.message]).toEqual(['INVALID_INPUT', 'lookupId', unknown]);
  });

  it('pays the looked-up address (any letter case) in a currency it supports', () => {
    expect(umaDestinationFromLookup(record, '$Maria@Bayani.example', 'USD')).toEqual({
      umaAddress: '$Maria@Bayani.example',
      currency: 'USD',
    });
    expect(refused(() => umaDestinationFromLookup(record, '$maria@bayani.example', 'EUR')).details?.['field']).toBe('destination.currency');
    expect(refused(() => umaDestinationFromLookup(record, '$maria@bayani.example', undefined)).message).toContain('PHP, USD');
    expect(
      umaDestinationFromLookup(
        { ...record, supportedCurrencies: record.supportedCurrencies.slice(0, 1) },
        '$maria@bayani.example',
        undefined,
      ).currency,
    ).toBe('PHP');
    expect(refused(() => umaDestinationFromLookup(record, '$jose@bayani.example', 'PHP')).details?.['field']).toBe('lookupId');
  });

  it('holds an external account destination to the account the lookup was of', () => {
    const accountLookup: ReceiverLookupRecord = {
      ...record,
      kind: 'EXTERNAL_ACCOUNT',
      accountId: 'ExternalAccount:a',
      receiverUmaAddress: undefined as never,
      supportedCurrencies: [{ code: 'EUR', estimatedExchangeRate: '1.08', min: '100', max: '1000000000' }],
    };
    expect(() => checkAccountLookup(accountLookup, 'ExternalAccount:a', 'EUR')).not.toThrow();
    expect(refused(() => checkAccountLookup(accountLookup, 'ExternalAccount:b', 'EUR')).details?.['field']).toBe('lookupId');
    expect(refused(() => checkAccountLookup(record, 'ExternalAccount:a', 'EUR')).details?.['field']).toBe('lookupId');
  });
});
