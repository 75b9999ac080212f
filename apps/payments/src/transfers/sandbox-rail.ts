import { primaryIdentifier } from '@corridor/contracts';
import type { RailOutcome } from '../transactions/transfer-events';

// The sandbox's same-currency rail: the last three digits of the external account's primary
// identifier (libs/contracts' primaryIdentifier) pick the outcome (the reference's transfer suffixes).

const outcomesBySuffix: Readonly<Record<string, RailOutcome>> = {
  '002': 'INSUFFICIENT_FUNDS',
  '003': 'ACCOUNT_CLOSED',
  '004': 'REJECTED_BY_BANK',
  '005': 'PENDING_THEN_FAILS',
};

/** For identifiers with a domain (a PIX e-mail, a lightning address) the digits sit before the '@'. */
export const sandboxRailOutcome = (accountInfo: Readonly<Record<string, unknown>>): RailOutcome => {
  const identifier = primaryIdentifier(accountInfo);
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
