import { createHash } from 'node:crypto';

// Check digits catch the typo a format check lets through; each function answers only "is this
// well-formed and self-consistent", never whether the account exists.

/** ABA routing number: weights 3, 7, 1 over the nine digits must sum to a multiple of ten. */
export const isValidAbaRoutingNumber = (routingNumber: string): boolean => {
  if (!/^[0-9]{9}$/.test(routingNumber)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  const sum = weights.reduce((total, weight, index) => total + weight * Number(routingNumber[index]), 0);
  return sum % 10 === 0;
};

/**
 * IBAN lengths of the countries a European or Middle-East payout is most often sent to. A country
 * missing here is still accepted on the generic 15–34 length, because the registry changes and a
 * false refusal costs more than a missed length typo that mod-97 catches anyway in most cases.
 */
export const ibanLengthByCountry: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GI: 23,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MT: 31,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PT: 25,
  RO: 24,
  SA: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 25,
  VA: 22,
};

/** IBAN checksum (ISO 13616): the first four characters moved to the end, letters as 10–35, mod 97 = 1. */
export const hasValidIbanChecksum = (iban: string): boolean => {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  // Digit by digit keeps the running remainder small; a 34-character IBAN overflows a double.
  let remainder = 0;
  for (const character of rearranged) {
    const value = parseInt(character, 36);
    remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
};

/** CLABE: weights 3, 7, 1 over the first 17 digits; the 18th is (10 − sum mod 10) mod 10. */
export const isValidClabe = (clabe: string): boolean => {
  if (!/^[0-9]{18}$/.test(clabe)) return false;
  const weights = [3, 7, 1];
  let sum = 0;
  for (let index = 0; index < 17; index += 1) {
    sum += (Number(clabe[index]) * (weights[index % 3] ?? 0)) % 10;
  }
  return (10 - (sum % 10)) % 10 === Number(clabe[17]);
};

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 (Bitcoin alphabet) to bytes, or null when a character is outside the alphabet. */
export const decodeBase58 = (text: string): Uint8Array | null => {
  let value = 0n;
  for (const character of text) {
    const digit = base58Alphabet.indexOf(character);
    if (digit < 0) return null;
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  // Each leading '1' encodes one leading zero byte, which the integer conversion drops.
  const leadingZeros = text.length - text.replace(/^1+/, '').length;
  return Uint8Array.from([...new Array<number>(leadingZeros).fill(0), ...bytes]);
};

const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** Tron address: base58check of 0x41 + 20-byte account id + 4 bytes of double SHA-256. */
export const isValidTronAddress = (address: string): boolean => {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return false;
  const bytes = decodeBase58(address);
  if (bytes === null || bytes.length !== 25 || bytes[0] !== 0x41) return false;
  const checksum = sha256(sha256(bytes.subarray(0, 21))).subarray(0, 4);
  return checksum.equals(Buffer.from(bytes.subarray(21)));
};

/** Solana address: a base58 ed25519 public key, so it must decode to exactly 32 bytes. */
export const isValidSolanaAddress = (address: string): boolean => {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return false;
  return decodeBase58(address)?.length === 32;
};
