// Pins the check-digit algorithms to published test values, valid and with one digit changed.
import {
  decodeBase58,
  hasValidIbanChecksum,
  isValidAbaRoutingNumber,
  isValidClabe,
  isValidSolanaAddress,
  isValidTronAddress,
} from './checksums';

describe('isValidAbaRoutingNumber', () => {
  it.each(['011000015', '021000021', '111000025'])('accepts %s', (routingNumber) => {
    expect(isValidAbaRoutingNumber(routingNumber)).toBe(true);
  });

  it.each(['011000016', '01100001', '0110000150', '01100001A'])('refuses %s', (routingNumber) => {
    expect(isValidAbaRoutingNumber(routingNumber)).toBe(false);
  });
});

describe('hasValidIbanChecksum', () => {
  it.each([
    'GB82WEST12345698765432',
    'DE89370400440532013000',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'AE070331234567890123456',
  ])('accepts %s', (iban) => {
    expect(hasValidIbanChecksum(iban)).toBe(true);
  });

  it.each(['DE89370400440532013001', 'GB82WEST12345698765433', 'GB28WEST12345698765432', 'de89370400440532013000'])(
    'refuses %s',
    (iban) => {
      expect(hasValidIbanChecksum(iban)).toBe(false);
    },
  );
});

describe('isValidClabe', () => {
  it('accepts a published CLABE', () => {
    expect(isValidClabe('032180000118359719')).toBe(true);
  });

  it.each(['032180000118359718', '03218000011835971', '0321800001183597190'])('refuses %s', (clabe) => {
    expect(isValidClabe(clabe)).toBe(false);
  });
});

describe('base58 wallets', () => {
  it('keeps leading zero bytes that leading ones encode', () => {
    expect(Array.from(decodeBase58('112') ?? [])).toEqual([0, 0, 1]);
  });

  it('refuses characters outside the alphabet', () => {
    expect(decodeBase58('0OIl')).toBeNull();
  });

  it('accepts Tron addresses whose base58check checksum matches', () => {
    expect(isValidTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(isValidTronAddress('TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL')).toBe(true);
  });

  it('refuses a Tron address with one character changed', () => {
    expect(isValidTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
  });

  it('accepts a 32-byte Solana key and refuses a shorter one', () => {
    expect(isValidSolanaAddress('4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb4xXHzsAbd8Wg')).toBe(true);
    expect(isValidSolanaAddress('4Nd1m6Qkq7RfKuE5vQ9qP9Tn6H94Ueqb')).toBe(false);
  });
});
