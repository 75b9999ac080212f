import type { PlatformEnvironment } from './requests';

// NATS message data of the accounts service's external accounts (bank accounts and wallets a
// customer or the platform pays out to). Replies are the reference ExternalAccount wire object.

export type ExternalAccountStatusWire = 'PENDING' | 'ACTIVE' | 'UNDER_REVIEW' | 'INACTIVE';
export type BeneficiaryVerificationStatusWire =
  'MATCHED' | 'PARTIAL_MATCH' | 'NOT_MATCHED' | 'UNSUPPORTED' | 'CHECKED_BY_RECEIVING_FI' | 'PENDING';

export type ExternalAccountWire = {
  id: string;
  /** Absent for the platform's own accounts. */
  customerId?: string;
  status: ExternalAccountStatusWire;
  platformAccountId?: string;
  currency: string;
  defaultUmaDepositAccount: boolean;
  beneficiaryVerificationStatus?: BeneficiaryVerificationStatusWire;
  beneficiaryVerifiedData?: { fullName: string };
  accountInfo: Record<string, unknown>;
};

/** Which route family asked: a customer's account is never visible through the platform's routes, nor the reverse. */
export type ExternalAccountOwnerKind = 'CUSTOMER' | 'PLATFORM';

export type CreateExternalAccountData = {
  owner: ExternalAccountOwnerKind;
  /** Required when owner is CUSTOMER, absent otherwise. */
  customerId?: string;
  currency: string;
  platformAccountId?: string;
  defaultUmaDepositAccount?: boolean;
  /** Passed through unvalidated by the gateway: the accounts service checks every accountType variant. */
  accountInfo: unknown;
  /** From the verified credential; sandbox platforms get the simulated verification and activation. */
  environment: PlatformEnvironment;
};

export type ExternalAccountIdData = { owner: ExternalAccountOwnerKind; externalAccountId: string };

export type ListExternalAccountsData = {
  owner: ExternalAccountOwnerKind;
  customerId?: string;
  currency?: string;
  limit: number;
  cursor?: string;
};

/**
 * The members that identify an external account, in the reference's order of preference (account
 * number, IBAN, CLABE, PIX key, VPA, wallet address, invoice, BOLT12 offer, lightning address, phone).
 * The first one present is the account's primary identifier: its last three digits pick the
 * sandbox's outcomes, in accounts (beneficiary checks) and payments (rails) alike.
 */
export const IDENTIFIER_MEMBERS = [
  'accountNumber',
  'iban',
  'clabeNumber',
  'pixKey',
  'vpa',
  'address',
  'invoice',
  'bolt12',
  'lightningAddress',
  'phoneNumber',
] as const;

/** The name of the account's primary identifier member, or undefined when it has none. */
export const primaryIdentifierMember = (accountInfo: Readonly<Record<string, unknown>>): string | undefined =>
  IDENTIFIER_MEMBERS.find((member) => typeof accountInfo[member] === 'string');

/** The primary identifier's value ('' when the account has none). */
export const primaryIdentifier = (accountInfo: Readonly<Record<string, unknown>>): string => {
  const member = primaryIdentifierMember(accountInfo);
  return member === undefined ? '' : (accountInfo[member] as string);
};
