import {
  hasValidIbanChecksum,
  ibanLengthByCountry,
  isValidAbaRoutingNumber,
  isValidClabe,
  isValidSolanaAddress,
  isValidTronAddress,
} from './checksums';
import { EMAIL_ADDRESS } from '@corridor/contracts';
import type { Members } from './fields';
import { checkFormat, checksumError, readOptionalString, shapeError } from './fields';

// Checks beyond the reference schema's own patterns, per accountType. Each one receives the
// members the generic table check already normalized (`info`, mutable so the spec's additions
// can be added) and the raw request members for values the table does not know.

export type Refinement = (info: Record<string, unknown>, raw: Members, path: string) => void;

/** Any IBAN member, whatever the accountType: country-specific length, then mod-97. */
export const refineIban: Refinement = (info, _raw, path) => {
  const iban = info['iban'];
  if (typeof iban !== 'string') return;
  const field = `${path}.iban`;
  const expectedLength = ibanLengthByCountry[iban.slice(0, 2)];
  if (expectedLength !== undefined && iban.length !== expectedLength) {
    throw shapeError(field, 'length', `must be ${expectedLength} characters long for an IBAN from ${iban.slice(0, 2)}.`);
  }
  if (!hasValidIbanChecksum(iban)) {
    throw checksumError(field, 'has IBAN check digits that do not match (mod-97); check the number for a typo.');
  }
};

const bankAccountTypes = ['CHECKING', 'SAVINGS'];

/** USD adds the spec's optional bankAccountType and bankName to the reference's routing number. */
const refineUsd: Refinement = (info, raw, path) => {
  if (!isValidAbaRoutingNumber(info['routingNumber'] as string)) {
    throw checksumError(`${path}.routingNumber`, 'is not a valid ABA routing number (its check digit does not match).');
  }
  const bankAccountType = readOptionalString(raw, 'bankAccountType', path);
  if (bankAccountType !== undefined && !bankAccountTypes.includes(bankAccountType)) {
    throw shapeError(`${path}.bankAccountType`, 'enum', `must be one of ${bankAccountTypes.join(', ')}.`);
  }
  const bankName = readOptionalString(raw, 'bankName', path);
  if (bankName !== undefined && bankName.length > 255) {
    throw shapeError(`${path}.bankName`, 'length', 'must be at most 255 characters long.');
  }
  if (bankAccountType !== undefined) info['bankAccountType'] = bankAccountType;
  if (bankName !== undefined) info['bankName'] = bankName;
};

const refineMxn: Refinement = (info, _raw, path) => {
  if (!isValidClabe(info['clabeNumber'] as string)) {
    throw checksumError(`${path}.clabeNumber`, 'is not a valid CLABE (its check digit does not match).');
  }
};

/** The key's format follows its declared type, so a CPF key cannot carry an email address. */
const pixKeyFormats: Readonly<Record<string, readonly [RegExp, string]>> = {
  CPF: [/^[0-9]{11}$/, 'an 11-digit CPF when pixKeyType is CPF'],
  CNPJ: [/^[0-9]{14}$/, 'a 14-digit CNPJ when pixKeyType is CNPJ'],
  EMAIL: [EMAIL_ADDRESS, 'an email address when pixKeyType is EMAIL'],
  PHONE: [/^\+55[0-9]{10,11}$/, 'a Brazilian phone number (+55 and 10 or 11 digits) when pixKeyType is PHONE'],
  RANDOM: [/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a random key (UUID) when pixKeyType is RANDOM'],
};

const refineBrl: Refinement = (info, _raw, path) => {
  const pixKeyType = info['pixKeyType'] as string;
  // Random keys are UUIDs that banks print in either case; storing one case keeps them comparable.
  if (pixKeyType === 'RANDOM' || pixKeyType === 'EMAIL') info['pixKey'] = (info['pixKey'] as string).toLowerCase();
  // The table check already limited pixKeyType to the reference enum, which is this table's keys.
  const [pattern, expected] = pixKeyFormats[pixKeyType] ?? [/$^/, 'a PIX key'];
  checkFormat(info['pixKey'] as string, pattern, `${path}.pixKey`, expected);
};

/** A SWIFT payout needs somewhere to land: the reference makes both optional, the bank needs one. */
const refineSwift: Refinement = (info, _raw, path) => {
  if (info['accountNumber'] === undefined && info['iban'] === undefined) {
    throw shapeError(`${path}.accountNumber`, 'missing', `or ${path}.iban is required.`);
  }
};

// EIP-55 mixed-case checksums need Keccak-256, which node:crypto lacks, so only the form is checked.
const refineEvm: Refinement = (info, _raw, path) => {
  checkFormat(info['address'] as string, /^0x[0-9a-fA-F]{40}$/, `${path}.address`, '0x followed by 40 hexadecimal characters');
};

const refineSolana: Refinement = (info, _raw, path) => {
  const field = `${path}.address`;
  checkFormat(info['address'] as string, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/, field, 'a base58 Solana address of 32 to 44 characters');
  if (!isValidSolanaAddress(info['address'] as string)) {
    throw shapeError(field, 'pattern', 'must decode to a 32-byte Solana public key.');
  }
};

const refineTron: Refinement = (info, _raw, path) => {
  const field = `${path}.address`;
  checkFormat(info['address'] as string, /^T[1-9A-HJ-NP-Za-km-z]{33}$/, field, 'a base58 Tron address of 34 characters starting with T');
  if (!isValidTronAddress(info['address'] as string)) {
    throw checksumError(field, 'is not a valid Tron address (its base58check checksum does not match).');
  }
};

// The reference's own Spark example fails a bech32m check, so only the human part and alphabet are checked.
const refineSpark: Refinement = (info, _raw, path) => {
  info['address'] = (info['address'] as string).toLowerCase();
  checkFormat(
    info['address'] as string,
    /^spark[a-z]{0,2}1[02-9ac-hj-np-z]{30,200}$/,
    `${path}.address`,
    'a Spark address (spark1 followed by bech32 characters)',
  );
};

const lightningFormats: Readonly<Record<string, readonly [RegExp, string]>> = {
  invoice: [/^ln(bc|tbs|tb|bcrt)[0-9a-z]*1[02-9ac-hj-np-z]{20,}$/, 'a BOLT11 invoice (lnbc…)'],
  bolt12: [/^ln[a-z]*1[02-9ac-hj-np-z]{20,}$/, 'a BOLT12 offer (lno1…)'],
  lightningAddress: [/^[a-z0-9._+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/, 'a lightning address (name@domain)'],
};

/** The reference requires exactly one destination; two would leave the payout ambiguous. */
const refineLightning: Refinement = (info, _raw, path) => {
  const names = Object.keys(lightningFormats);
  const present = names.filter((name) => info[name] !== undefined);
  const choice = `give exactly one of ${names.map((name) => `${path}.${name}`).join(', ')}`;
  if (present.length === 0) throw shapeError(`${path}.invoice`, 'missing', `is required: ${choice}.`);
  if (present.length > 1) throw shapeError(`${path}.${present[1]}`, 'exactly_one', `must be left out: ${choice}.`);
  const name = present[0] as string;
  // Bech32 strings and domain names are case-insensitive; lower case is the canonical form.
  info[name] = (info[name] as string).toLowerCase();
  const [pattern, expected] = lightningFormats[name] ?? [/$^/, 'a lightning destination'];
  checkFormat(info[name] as string, pattern, `${path}.${name}`, expected);
};

export const refinementsByAccountType: Readonly<Record<string, Refinement>> = {
  USD_ACCOUNT: refineUsd,
  MXN_ACCOUNT: refineMxn,
  BRL_ACCOUNT: refineBrl,
  SWIFT_ACCOUNT: refineSwift,
  ETHEREUM_WALLET: refineEvm,
  POLYGON_WALLET: refineEvm,
  BASE_WALLET: refineEvm,
  SOLANA_WALLET: refineSolana,
  TRON_WALLET: refineTron,
  SPARK_WALLET: refineSpark,
  LIGHTNING: refineLightning,
};
