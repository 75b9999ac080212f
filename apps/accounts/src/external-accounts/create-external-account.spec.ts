// Pins down what a new external account is recorded as, what it refuses before anything is
// written, and which accounts count as the same one for the duplicate check.
import { deciderSpec } from '@corridor/testing';
import { createExternalAccount, identityKeyOf } from './create-external-account';
import { externalAccountDecider } from './external-account';
import { createCommand, created, customerId, platformId, usdInfo, usdRequest, walletInfo } from './external-account.fixtures';

const { given } = deciderSpec({ decide: createExternalAccount, ...externalAccountDecider });

describe('CreateExternalAccount', () => {
  it('records a customer’s account with its validated accountInfo', () => given([]).when(createCommand()).then([created()]));

  it('records a platform account without a customer, with the platform’s own id for it', () =>
    given([])
      .when(createCommand({ customerId: null, platformAccountId: 'acct-7' }))
      .then([created({ customerId: null, platformAccountId: 'acct-7' })]));

  it('records the request to become the default UMA deposit account', () =>
    given([])
      .when(createCommand({ defaultUmaDepositAccount: true }))
      .then([created({ defaultUmaDepositAccount: true })]));

  it('refuses a bad IBAN checksum, naming the member', () =>
    given([])
      .when(
        createCommand({
          currency: 'EUR',
          accountInfo: {
            accountType: 'EUR_ACCOUNT',
            iban: 'DE89370400440532013001',
            beneficiary: { ...usdRequest.beneficiary, countryOfResidence: 'DE' },
          },
        }),
      )
      .thenThrows(
        (error) => error.status === 400 && error.code === 'INVALID_BANK_ACCOUNT' && error.details?.['field'] === 'accountInfo.iban',
      ));

  it('refuses an 8-digit routing number', () =>
    given([])
      .when(createCommand({ accountInfo: { ...usdRequest, routingNumber: '01100001' } }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'accountInfo.routingNumber'));

  it('refuses an accountType that does not match the currency', () =>
    given([])
      .when(createCommand({ currency: 'EUR' }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'accountInfo.accountType'));

  it('refuses a default UMA deposit account for the platform', () =>
    given([])
      .when(createCommand({ customerId: null, defaultUmaDepositAccount: true }))
      .thenThrows((error) => error.status === 400 && error.details?.['field'] === 'defaultUmaDepositAccount'));

  it('refuses a currency that is not a currency code', () =>
    given([])
      .when(createCommand({ currency: 'usd' }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY' && error.details?.['field'] === 'currency'));

  it('refuses an id that already has a stream', () =>
    given([created()])
      .when(createCommand())
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409));
});

// The id is derived from the Idempotency-Key: an account under it is this request again or another
// request under a used key (decision 0028).
describe('CreateExternalAccount under a used Idempotency-Key', () => {
  const first = 'f1'.repeat(32);
  const other = 'e2'.repeat(32);

  it('answers the same request again with the account as it stands', () =>
    given([created({ requestFingerprint: first })])
      .when(createCommand({ requestFingerprint: first }))
      .thenNothingHappened());

  it('keeps the fingerprint with the account it records', () =>
    given([])
      .when(createCommand({ requestFingerprint: first }))
      .then([created({ requestFingerprint: first })]));

  it('refuses another request under the key with a 409 naming the account', () =>
    given([created({ requestFingerprint: first })])
      .when(createCommand({ requestFingerprint: other }))
      .thenThrows(
        (error) =>
          error.status === 409 && error.code === 'CONFLICT' && error.details?.['resourceId'] === created().data['externalAccountId'],
      ));

  it('never answers with another customer’s account, whatever the fingerprint', () =>
    given([created({ requestFingerprint: first })])
      .when(createCommand({ customerId: 'Customer:019542f5-b3e7-7d02-8000-0000000000ff', requestFingerprint: first }))
      .thenThrows((error) => error.status === 409));

  it('answers a request with a key for an account kept before fingerprints were (same owner)', () =>
    given([created()])
      .when(createCommand({ requestFingerprint: other }))
      .thenNothingHappened());

  it('refuses the platform’s own account to a customer’s request', () =>
    given([created({ customerId: null })])
      .when(createCommand({ requestFingerprint: other }))
      .thenThrows((error) => error.status === 409));

  it('refuses a deleted account’s key', () =>
    given([
      created({ requestFingerprint: first }),
      {
        type: 'ExternalAccountDeleted',
        data: { externalAccountId: created().data['externalAccountId'] as string, deletedAt: '2026-01-01T00:00:00.000Z' },
      },
    ])
      .when(createCommand({ requestFingerprint: first }))
      .thenThrows((error) => error.status === 409));
});

describe('identityKeyOf', () => {
  const key = (info = usdInfo, owner: string | null = customerId, currency = 'USD') => identityKeyOf(platformId, owner, currency, info);

  it('is the same for the same owner, currency and destination', () =>
    expect(key()).toBe(key({ ...usdInfo, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Someone Else' } } as typeof usdInfo)));

  it('tells apart the same account number at another bank', () =>
    expect(key({ ...usdInfo, routingNumber: '021000021' } as typeof usdInfo)).not.toBe(key()));

  it('tells apart owners and currencies', () => {
    expect(key(usdInfo, null)).not.toBe(key());
    expect(key(walletInfo, customerId, 'BTC')).not.toBe(key(walletInfo, customerId, 'USDC'));
  });

  it('treats EVM addresses that differ only in case as one wallet', () =>
    expect(key({ accountType: 'ETHEREUM_WALLET', address: '0xABCDEF1234567890abcdef1234567890ABCDEF12' }, customerId, 'USDC')).toBe(
      key({ accountType: 'ETHEREUM_WALLET', address: '0xabcdef1234567890abcdef1234567890abcdef12' }, customerId, 'USDC'),
    ));
});
