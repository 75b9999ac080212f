// Pins down the funding instructions of an internal account: the same account always gets the
// same details, two accounts never share them, every number passes its rail's check digits, and
// the rendered objects conform to the reference's PaymentInstructions.
import { currencies, newId } from '@corridor/contracts';
import { createConformance } from '@corridor/testing';
import { hasValidIbanChecksum, isValidAbaRoutingNumber, isValidClabe, isValidSolanaAddress } from '../external-accounts/checksums';
import { bech32mOf, crc16Ccitt, fundingInstructionsOf, fundingReferenceOf } from '@corridor/contracts';

const accountId = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
const otherAccountId = 'InternalAccount:0196f1a0-0000-7000-8000-000000000002';
const customerId = 'Customer:0196f1a0-0000-7000-8000-000000000003';

const infoOf = (currency: string, id = accountId) =>
  fundingInstructionsOf({ accountId: id, customerId, currency }).map((instruction) => instruction.accountOrWalletInfo);
const only = (currency: string, id = accountId) => {
  const [info, ...rest] = infoOf(currency, id);
  if (!info || rest.length > 0) throw new Error(`Expected one instruction for ${currency}.`);
  return info;
};

describe('fundingInstructionsOf', () => {
  it('gives the same instructions for the same account, every time', () =>
    Object.keys(currencies).forEach((currency) => expect(infoOf(currency)).toEqual(infoOf(currency))));

  it('gives two accounts different details and different references', () => {
    expect(fundingReferenceOf(accountId)).not.toBe(fundingReferenceOf(otherAccountId));
    for (const currency of Object.keys(currencies).filter((code) => code !== 'AED')) {
      expect(infoOf(currency)).not.toEqual(infoOf(currency, otherAccountId));
    }
  });

  it('gives USD a US account number, a routing number with a valid ABA check digit and the reference', () => {
    const usd = only('USD');
    expect(usd).toMatchObject({ accountType: 'USD_ACCOUNT', paymentRails: ['ACH', 'WIRE'], reference: fundingReferenceOf(accountId) });
    expect(usd['accountNumber']).toMatch(/^[0-9]{12}$/);
    expect(isValidAbaRoutingNumber(String(usd['routingNumber']))).toBe(true);
    // Many accounts, so a check digit that is only sometimes right cannot slip through.
    for (let index = 0; index < 200; index += 1)
      expect(isValidAbaRoutingNumber(String(only('USD', newId('InternalAccount'))['routingNumber']))).toBe(true);
  });

  it('gives EUR a German IBAN whose mod-97 checksum holds', () => {
    for (let index = 0; index < 200; index += 1) {
      const iban = String(only('EUR', newId('InternalAccount'))['iban']);
      expect(iban).toMatch(/^DE[0-9]{20}$/);
      expect(hasValidIbanChecksum(iban)).toBe(true);
    }
  });

  it('gives MXN an 18-digit CLABE whose check digit holds', () => {
    for (let index = 0; index < 200; index += 1)
      expect(isValidClabe(String(only('MXN', newId('InternalAccount'))['clabeNumber']))).toBe(true);
  });

  it('gives crypto currencies deposit addresses instead of bank details', () => {
    expect(only('BTC')).toMatchObject({ accountType: 'SPARK_WALLET', assetType: 'BTC' });
    expect(String(only('BTC')['address'])).toMatch(/^spark1[02-9ac-hj-np-z]{50,}$/);
    const usdc = infoOf('USDC');
    expect(usdc.map((info) => info.accountType)).toEqual(['SOLANA_WALLET', 'BASE_WALLET']);
    expect(isValidSolanaAddress(String(usdc[0]?.['address']))).toBe(true);
    expect(usdc[1]?.['address']).toMatch(/^0x[0-9a-f]{40}$/);
  });

  it('marks the platform’s own accounts as platform accounts', () => {
    expect(fundingInstructionsOf({ accountId, customerId: null, currency: 'USD' })[0]?.isPlatformAccount).toBe(true);
    expect(fundingInstructionsOf({ accountId, customerId, currency: 'USD' })[0]?.isPlatformAccount).toBe(false);
  });

  it('gives AED no instructions, since the reference cannot express an AED payment account', () => expect(infoOf('AED')).toEqual([]));

  it('renders objects the reference accepts as InternalAccount.fundingPaymentInstructions for every currency', () => {
    const conformance = createConformance();
    const data = Object.keys(currencies).map((currency) => ({
      id: accountId,
      customerId,
      type: 'INTERNAL_FIAT',
      status: 'ACTIVE',
      balance: { amount: 0, currency: currencies[currency] },
      totalBalance: { amount: 0, currency: currencies[currency] },
      fundingPaymentInstructions: fundingInstructionsOf({ accountId, customerId, currency }),
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
    }));
    expect(() =>
      conformance.check({ method: 'GET', path: '/customers/internal-accounts', status: 200, body: { data, hasMore: false } }),
    ).not.toThrow();
  });
});

describe('the check-digit helpers', () => {
  // Published vectors, so the encoders are judged by something other than themselves.
  it('computes bech32m as BIP 350 does', () => expect(bech32mOf('a', new Uint8Array())).toBe('a1lqfn3a'));
  it('computes CRC-16/CCITT-FALSE as the PIX BR Code needs', () => expect(crc16Ccitt('123456789')).toBe('29B1'));
});
