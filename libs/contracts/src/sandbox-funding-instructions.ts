import { createHash } from 'node:crypto';
import type { PaymentInstructionsWire } from './accounts';

// Shared by the accounts service (an internal account's fundingPaymentInstructions) and the
// payments service (a REALTIME_FUNDING quote's paymentInstructions, keyed by the quote id).
// How a platform (or its customer) pays money into an internal account: the bank details or
// wallet address of the account, plus a reference to quote so the incoming transfer can be matched
// to it. Corridor has no banking rails yet, so these are sandbox values: derived from the account
// id alone, they are the same on every read, on every replica and after a rebuild of the read
// model, and they pass the same format and check-digit rules as real ones (ABA, IBAN mod 97,
// CLABE, base58, bech32m). A deployment with real rails replaces this function, not its callers.

export type FundingAccount = { accountId: string; customerId: string | null; currency: string };

const SANDBOX_BANK = 'Corridor Sandbox Bank';
const SANDBOX_SWIFT = 'CRDRUS33';

/** Deterministic bytes per account and purpose; a different purpose gives unrelated bytes. */
const digestOf = (accountId: string, purpose: string): Buffer => createHash('sha256').update(`${accountId}|${purpose}`).digest();

/** `count` decimal digits (count ≤ 70) drawn from the digest; leading zeros kept. */
const digitsOf = (accountId: string, purpose: string, count: number): string => {
  const value = BigInt(`0x${digestOf(accountId, purpose).toString('hex')}`);
  return (value % 10n ** BigInt(count)).toString().padStart(count, '0');
};

/**
 * What the payer quotes in the transfer's memo: unique per account (64 bits of its hash), short
 * enough for every rail's memo field, and free of characters a bank would strip.
 */
export const fundingReferenceOf = (accountId: string): string =>
  `CRD${digestOf(accountId, 'reference').toString('hex').slice(0, 16).toUpperCase()}`;

/** ABA: weights 3, 7, 1 over nine digits sum to a multiple of ten; the ninth digit makes it so. */
export const abaRoutingNumberOf = (accountId: string): string => {
  // Federal Reserve routing symbols start 01–12; 0 followed by 1–9 stays inside that range.
  const body = `0${(Number(digitsOf(accountId, 'aba-district', 1)) % 9) + 1}${digitsOf(accountId, 'aba', 6)}`;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7];
  const sum = weights.reduce((total, weight, index) => total + weight * Number(body[index]), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
};

/** IBAN check digits (ISO 13616): 98 − (BBAN + country + "00") mod 97, letters counted as 10–35. */
export const ibanOf = (country: string, bban: string): string => {
  let remainder = 0;
  for (const character of `${bban}${country}00`) {
    const value = parseInt(character, 36);
    remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
};

/** CLABE: bank (3) + branch (3) + account (11) + a check digit over weights 3, 7, 1. */
export const clabeOf = (accountId: string): string => {
  // 646 is STP, the SPEI participant most sandbox CLABEs use; 180 its Mexico City plaza.
  const body = `646180${digitsOf(accountId, 'clabe', 11)}`;
  const weights = [3, 7, 1];
  const sum = [...body].reduce((total, digit, index) => total + ((Number(digit) * (weights[index % 3] ?? 0)) % 10), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
};

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A Solana address is the base58 form of a 32-byte public key. */
export const solanaAddressOf = (accountId: string): string => {
  const bytes = digestOf(accountId, 'solana');
  let value = BigInt(`0x${bytes.toString('hex')}`);
  let text = '';
  while (value > 0n) {
    text = `${BASE58[Number(value % 58n)]}${text}`;
    value /= 58n;
  }
  const leadingZeros = bytes.findIndex((byte) => byte !== 0);
  return `${'1'.repeat(Math.max(0, leadingZeros))}${text}`;
};

/** An EVM address is 20 bytes in hex; lower case is valid without an EIP-55 checksum. */
export const evmAddressOf = (accountId: string): string => `0x${digestOf(accountId, 'evm').subarray(0, 20).toString('hex')}`;

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BECH32M_CONSTANT = 0x2bc830a3;

const bech32Polymod = (values: number[]): number => {
  const generators = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    generators.forEach((generator, bit) => {
      if ((top >>> bit) & 1) checksum ^= generator;
    });
  }
  return checksum >>> 0;
};

/** bech32m (BIP 350) of 8-bit data under a human-readable part. */
export const bech32mOf = (humanPart: string, bytes: Uint8Array): string => {
  const words: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const byte of bytes) {
    accumulator = (accumulator << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((accumulator >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((accumulator << (5 - bits)) & 31);
  const expanded = [...[...humanPart].map((c) => c.charCodeAt(0) >>> 5), 0, ...[...humanPart].map((c) => c.charCodeAt(0) & 31)];
  const polymod = bech32Polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ BECH32M_CONSTANT;
  const checksum = Array.from({ length: 6 }, (_, index) => (polymod >>> (5 * (5 - index))) & 31);
  return `${humanPart}1${[...words, ...checksum].map((word) => BECH32[word]).join('')}`;
};

/** A Spark address: bech32m under `spark` of a 33-byte compressed public key. */
export const sparkAddressOf = (accountId: string): string => bech32mOf('spark', Uint8Array.from([0x02, ...digestOf(accountId, 'spark')]));

/** EMV field: id, two-digit length, value. */
const emv = (id: string, value: string): string => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the checksum that closes a PIX BR Code. */
export const crc16Ccitt = (text: string): string => {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
};

/** A static PIX BR Code ("copia e cola") whose random key is derived from the account id. */
export const pixCodeOf = (accountId: string, reference: string): string => {
  const hex = digestOf(accountId, 'pix').toString('hex');
  const key = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const body = [
    emv('00', '01'),
    emv('26', emv('00', 'br.gov.bcb.pix') + emv('01', key)),
    emv('52', '0000'),
    emv('53', '986'),
    emv('58', 'BR'),
    emv('59', 'CORRIDOR SANDBOX'),
    emv('60', 'SAO PAULO'),
    emv('62', emv('05', reference)),
  ].join('');
  return `${body}6304${crc16Ccitt(`${body}6304`)}`;
};

type Info = PaymentInstructionsWire['accountOrWalletInfo'];

/** Bank details per fiat currency, in the reference's Payment<Currency>AccountInfo shapes. */
const bankInfoOf = (accountId: string, currency: string, reference: string): Info | null => {
  switch (currency) {
    case 'USD':
      return {
        accountType: 'USD_ACCOUNT',
        accountNumber: digitsOf(accountId, 'usd-account', 12),
        routingNumber: abaRoutingNumberOf(accountId),
        bankAccountType: 'CHECKING',
        bankName: SANDBOX_BANK,
        paymentRails: ['ACH', 'WIRE'],
        reference,
      };
    case 'EUR':
      // A German IBAN: bank code (8 digits) + account number (10 digits).
      return {
        accountType: 'EUR_ACCOUNT',
        iban: ibanOf('DE', `10010010${digitsOf(accountId, 'eur-account', 10)}`),
        swiftCode: SANDBOX_SWIFT,
        paymentRails: ['SEPA', 'SEPA_INSTANT'],
        reference,
      };
    case 'GBP':
      return {
        accountType: 'GBP_ACCOUNT',
        sortCode: '040004',
        accountNumber: digitsOf(accountId, 'gbp-account', 8),
        paymentRails: ['FASTER_PAYMENTS'],
        reference,
      };
    case 'MXN':
      return { accountType: 'MXN_ACCOUNT', clabeNumber: clabeOf(accountId), paymentRails: ['SPEI'], reference };
    case 'BRL':
      // The reference's BRL instructions are a PIX QR code only; the reference travels inside it.
      return { accountType: 'BRL_ACCOUNT', qrCode: pixCodeOf(accountId, reference) };
    case 'INR':
      return { accountType: 'INR_ACCOUNT', vpa: `crd${digitsOf(accountId, 'upi', 12)}@corridor`, paymentRails: ['UPI'] };
    case 'NGN':
      return {
        accountType: 'NGN_ACCOUNT',
        accountNumber: digitsOf(accountId, 'ngn-account', 10),
        bankName: SANDBOX_BANK,
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    case 'PHP':
      return {
        accountType: 'PHP_ACCOUNT',
        accountNumber: digitsOf(accountId, 'php-account', 12),
        bankName: SANDBOX_BANK,
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    case 'CAD':
      return {
        accountType: 'CAD_ACCOUNT',
        bankCode: '001',
        branchCode: digitsOf(accountId, 'cad-branch', 5),
        accountNumber: digitsOf(accountId, 'cad-account', 12),
        paymentRails: ['BANK_TRANSFER'],
        reference,
      };
    default:
      // AED: the reference defines PaymentAedAccountInfo but leaves AED_ACCOUNT out of the
      // accountType list every payment variant shares, so no AED instruction can conform; the
      // account is listed without instructions rather than with an object clients cannot parse.
      return null;
  }
};

/** Deposit addresses per crypto currency; a unique address per account needs no reference. */
const walletInfosOf = (accountId: string, currency: string): Info[] => {
  switch (currency) {
    case 'BTC':
      return [{ accountType: 'SPARK_WALLET', address: sparkAddressOf(accountId), assetType: 'BTC' }];
    case 'USDB':
      return [{ accountType: 'SPARK_WALLET', address: sparkAddressOf(accountId), assetType: 'USDB' }];
    case 'USDC':
      return [
        { accountType: 'SOLANA_WALLET', address: solanaAddressOf(accountId), assetType: 'USDC' },
        { accountType: 'BASE_WALLET', address: evmAddressOf(accountId), assetType: 'USDC' },
      ];
    default:
      return [];
  }
};

/** The fundingPaymentInstructions of one internal account, the same for every call with the same account. */
export const fundingInstructionsOf = ({ accountId, customerId, currency }: FundingAccount): PaymentInstructionsWire[] => {
  const reference = fundingReferenceOf(accountId);
  const isPlatformAccount = customerId === null;
  const bank = bankInfoOf(accountId, currency, reference);
  if (bank) {
    return [
      {
        instructionsNotes: `Quote the reference ${reference} in the payment's memo or description so the funds reach this account.`,
        isPlatformAccount,
        accountOrWalletInfo: bank,
      },
    ];
  }
  return walletInfosOf(accountId, currency).map((info) => ({
    instructionsNotes:
      `Send only ${currency} on the ${String(info['accountType']).replace('_WALLET', '').toLowerCase()} network to ` +
      `this address; it belongs to this account alone.`,
    isPlatformAccount,
    accountOrWalletInfo: info,
  }));
};
