import { DomainError, primaryIdentifierMember } from '@corridor/contracts';
import type { AccountTypeRules } from './account-type-rules';
import { accountTypeRules } from './account-types.generated';
import type { Beneficiary } from './beneficiary';
import { validateBeneficiary } from './beneficiary';
import type { Members } from './fields';
import { checkStringRule, readObject, readOptionalString, shapeError } from './fields';
import { refineIban, refinementsByAccountType } from './refinements';

export type AccountType = keyof typeof accountTypeRules;
export type { Beneficiary } from './beneficiary';

type WithBeneficiary<Members> = Readonly<Members & { beneficiary: Beneficiary }>;

export type UsdAccountInfo = WithBeneficiary<{
  accountType: 'USD_ACCOUNT';
  accountNumber: string;
  routingNumber: string;
  bankAccountType?: 'CHECKING' | 'SAVINGS';
  bankName?: string;
}>;
export type EurAccountInfo = WithBeneficiary<{ accountType: 'EUR_ACCOUNT'; iban: string; swiftCode?: string }>;
export type GbpAccountInfo = WithBeneficiary<{ accountType: 'GBP_ACCOUNT'; sortCode: string; accountNumber: string }>;
export type MxnAccountInfo = WithBeneficiary<{ accountType: 'MXN_ACCOUNT'; clabeNumber: string }>;
export type BrlAccountInfo = WithBeneficiary<{
  accountType: 'BRL_ACCOUNT';
  pixKey: string;
  pixKeyType: 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'RANDOM';
  taxId: string;
}>;
export type InrAccountInfo = WithBeneficiary<{ accountType: 'INR_ACCOUNT'; vpa: string }>;
export type AedAccountInfo = WithBeneficiary<{ accountType: 'AED_ACCOUNT'; iban: string; swiftCode?: string }>;
export type NgnAccountInfo = WithBeneficiary<{ accountType: 'NGN_ACCOUNT'; accountNumber: string; bankName: string }>;
export type SwiftAccountInfo = WithBeneficiary<{
  accountType: 'SWIFT_ACCOUNT';
  country: string;
  swiftCode: string;
  bankName: string;
  accountNumber?: string;
  iban?: string;
}>;
export type WalletAccountInfo = Readonly<{
  accountType: 'ETHEREUM_WALLET' | 'POLYGON_WALLET' | 'BASE_WALLET' | 'SOLANA_WALLET' | 'TRON_WALLET' | 'SPARK_WALLET';
  address: string;
}>;
export type LightningAccountInfo = Readonly<{
  accountType: 'LIGHTNING';
  invoice?: string;
  bolt12?: string;
  lightningAddress?: string;
}>;

type SpecificAccountInfo =
  | UsdAccountInfo
  | EurAccountInfo
  | GbpAccountInfo
  | MxnAccountInfo
  | BrlAccountInfo
  | InrAccountInfo
  | AedAccountInfo
  | NgnAccountInfo
  | SwiftAccountInfo
  | WalletAccountInfo
  | LightningAccountInfo;

/** The other reference variants, checked against their schema only; their members stay strings. */
export type GenericAccountInfo = Readonly<{
  accountType: Exclude<AccountType, SpecificAccountInfo['accountType']>;
  beneficiary?: Beneficiary;
  [member: string]: string | Beneficiary | undefined;
}>;

export type AccountInfo = SpecificAccountInfo | GenericAccountInfo;

export type ValidateAccountInfoOptions = Readonly<{ currency: string; field?: string }>;

export const acceptedAccountTypes = Object.keys(accountTypeRules) as AccountType[];

/**
 * Validates and normalizes an external account's accountInfo. Shape problems throw INVALID_INPUT,
 * check digits that do not match throw INVALID_BANK_ACCOUNT; both are 400s naming the member by
 * its dot path. Members the schema does not know are dropped rather than refused, as the gateway's
 * whitelisting validation pipe does elsewhere.
 */
export const validateAccountInfo = (accountInfo: unknown, options: ValidateAccountInfoOptions): AccountInfo => {
  const path = options.field ?? 'accountInfo';
  const raw = readObject(accountInfo, path);
  const accountType = readAccountType(raw, path, options.currency);
  const rules: AccountTypeRules = accountTypeRules[accountType];
  const info: Record<string, unknown> = { accountType, ...readSchemaMembers(raw, rules, path) };
  if (rules.beneficiary !== undefined && (rules.beneficiaryRequired || raw['beneficiary'] != null)) {
    info['beneficiary'] = validateBeneficiary(raw['beneficiary'], rules.beneficiary, `${path}.beneficiary`);
  }
  refineIban(info, raw, path);
  refinementsByAccountType[accountType]?.(info, raw, path);
  // The table check and the refinement for this accountType together establish its variant's members.
  return info as AccountInfo;
};

const readAccountType = (raw: Members, path: string, currency: string): AccountType => {
  const field = `${path}.accountType`;
  const accountType = readOptionalString(raw, 'accountType', path);
  if (accountType === undefined || !Object.hasOwn(accountTypeRules, accountType)) {
    const problem = accountType === undefined ? 'missing' : 'unknown_account_type';
    throw shapeError(field, problem, `must be one of ${acceptedAccountTypes.join(', ')}.`);
  }
  // A bank account type names its currency; a wallet can hold several, so it is not checked here.
  const accountCurrency = /^([A-Z]{3})_ACCOUNT$/.exec(accountType)?.[1];
  if (accountCurrency !== undefined && accountCurrency !== currency) {
    throw shapeError(field, 'currency_mismatch', `${accountType} does not match the account currency ${currency}.`);
  }
  return accountType as AccountType;
};

/** Words for formats that a regular expression would not tell a client at a glance. */
const expectedFormats: Readonly<Record<string, string>> = {
  routingNumber: 'a 9-digit ABA routing number',
  iban: 'an IBAN: 2-letter country code, 2 check digits, then 11 to 30 letters or digits, without spaces',
  swiftCode: 'a BIC of 8 or 11 characters: 4-letter bank code, 2-letter country code, 2-character location, optional 3-character branch',
  clabeNumber: 'an 18-digit CLABE',
  sortCode: 'a 6-digit sort code',
  vpa: 'a UPI virtual payment address (name@bank)',
  taxId: 'a CPF (11 digits) or CNPJ (14 digits), digits only',
  country: 'a 2-letter ISO 3166-1 country code',
};

/** Spaces and dashes are how people write these numbers down; the stored form has neither. */
const compactedMembers = new Set(['iban', 'swiftCode', 'sortCode', 'clabeNumber', 'routingNumber']);

const readSchemaMembers = (raw: Members, rules: AccountTypeRules, path: string): Record<string, string> => {
  const members: Record<string, string> = {};
  for (const [name, rule] of Object.entries(rules.strings)) {
    let value = readOptionalString(raw, name, path);
    if (value === undefined) continue;
    if (compactedMembers.has(name)) value = value.replace(/[\s-]/g, '').toUpperCase();
    members[name] = checkStringRule(value, rule, `${path}.${name}`, expectedFormats[name] ?? patternWords(name, rule.pattern));
  }
  for (const name of rules.required) {
    if (members[name] === undefined) throw shapeError(`${path}.${name}`, 'missing', 'is required.');
  }
  return members;
};

const patternWords = (name: string, pattern: string | undefined): string | undefined =>
  name === 'phoneNumber' && pattern !== undefined ? `a phone number in international form matching ${pattern}` : undefined;

/**
 * The identifier whose last three digits pick sandbox outcomes: account number, IBAN, CLABE, PIX
 * key, wallet address… in that order of preference, as the reference lists them.
 */
export const primaryIdentifierOf = (info: AccountInfo): string => {
  const members = info as Readonly<Record<string, unknown>>;
  const name = primaryIdentifierMember(members);
  if (name === undefined) throw new Error(`primaryIdentifierOf: ${info.accountType} has no identifier member`);
  return members[name] as string;
};

export type BeneficiaryVerificationStatus =
  'MATCHED' | 'PARTIAL_MATCH' | 'NOT_MATCHED' | 'UNSUPPORTED' | 'CHECKED_BY_RECEIVING_FI' | 'PENDING';

const sandboxVerificationBySuffix: Readonly<Record<string, BeneficiaryVerificationStatus>> = {
  '102': 'NOT_MATCHED',
  '103': 'PARTIAL_MATCH',
  '104': 'PENDING',
  '106': 'UNSUPPORTED',
  '107': 'CHECKED_BY_RECEIVING_FI',
};

/**
 * Sandbox beneficiary verification from the identifier's last three characters. For identifiers
 * with a domain (a PIX email, a lightning address) the digits sit before the '@'. Suffix 105 is a
 * refused account, so it throws the same 400 a bad check digit does.
 */
export const sandboxBeneficiaryOutcome = (identifier: string): BeneficiaryVerificationStatus => {
  const localPart = identifier.split('@')[0] ?? identifier;
  const suffix = localPart.slice(-3);
  if (suffix === '105') {
    throw new DomainError(
      'INVALID_BANK_ACCOUNT',
      'validation',
      'accountInfo is refused: the receiving bank reports this account as invalid.',
      {
        field: 'accountInfo',
        problem: 'rejected_by_bank',
      },
    );
  }
  return sandboxVerificationBySuffix[suffix] ?? 'MATCHED';
};
