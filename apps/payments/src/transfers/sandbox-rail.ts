import type { RailOutcome } from '../transactions/transfer-events';

// The sandbox's same-currency rail: the last three digits of the external account's primary
// identifier pick the outcome (the reference's transfer suffixes). The identifier members are the
// accounts service's order of preference (account number, IBAN, CLABE, PIX key, wallet address …);
// services share only libs, so the list is repeated here.

const identifierMembers = [
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
];

const outcomesBySuffix: Readonly<Record<string, RailOutcome>> = {
  '002': 'INSUFFICIENT_FUNDS',
  '003': 'ACCOUNT_CLOSED',
  '004': 'REJECTED_BY_BANK',
  '005': 'PENDING_THEN_FAILS',
};

export const primaryIdentifierOf = (accountInfo: Readonly<Record<string, unknown>>): string => {
  const name = identifierMembers.find((candidate) => typeof accountInfo[candidate] === 'string');
  return name === undefined ? '' : (accountInfo[name] as string);
};

/** For identifiers with a domain (a PIX e-mail, a lightning address) the digits sit before the '@'. */
export const sandboxRailOutcome = (accountInfo: Readonly<Record<string, unknown>>): RailOutcome => {
  const identifier = primaryIdentifierOf(accountInfo);
  const localPart = identifier.split('@')[0] ?? identifier;
  return outcomesBySuffix[localPart.slice(-3)] ?? 'SUCCEEDS';
};

/**
 * Which external accounts can be pulled from (POST /transfer-in): those reachable over ACH, whose
 * debit (ACH pull) the reference names as the example of pull capability. Every other rail in the
 * reference's PaymentRail list is a push rail (the payer's bank sends), so those accounts fund an
 * internal account through its payment instructions instead.
 */
export const pullRails: ReadonlySet<string> = new Set(['ACH']);

export const canPull = (accountInfo: Readonly<Record<string, unknown>>): boolean => {
  const rails = accountInfo['paymentRails'];
  return Array.isArray(rails) && rails.some((rail) => typeof rail === 'string' && pullRails.has(rail));
};
