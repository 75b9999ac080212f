import { DomainError, invalidInput } from '@corridor/contracts';

// Which internal accounts may fund a card: the cardholder's own, ACTIVE, in one card-eligible
// currency (and, on a PATCH, the card's currency), plus the reference's sandbox magic on the
// account id's last three characters (002 no balance, 003 closed). Pure: the facts about each
// account are looked up by the controller and arrive in the command.

/** What the accounts service said about one requested source; found false for another platform's or an unknown id. */
export type FundingSourceFacts = { accountId: string; found: boolean; customerId?: string; status?: string; currency?: string };

export type IneligibleReason =
  | 'NOT_FOUND'
  | 'NOT_OWNED_BY_CARDHOLDER'
  | 'ACCOUNT_NOT_ACTIVE'
  | 'CURRENCY_NOT_CARD_ELIGIBLE'
  | 'CURRENCY_MISMATCH'
  | 'INSUFFICIENT_BALANCE'
  | 'ACCOUNT_CLOSED'
  | 'DUPLICATE';

/** At most this many sources on one card: a card tries them in order at every authorization. */
export const FUNDING_SOURCES_MAX = 10;

const reasonText: Readonly<Record<IneligibleReason, string>> = {
  NOT_FOUND: 'is not an internal account of this platform',
  NOT_OWNED_BY_CARDHOLDER: 'is not an internal account of the cardholder',
  ACCOUNT_NOT_ACTIVE: 'is not ACTIVE',
  CURRENCY_NOT_CARD_ELIGIBLE: 'is not in a card-eligible currency',
  CURRENCY_MISMATCH: "is not in the card's currency",
  INSUFFICIENT_BALANCE: 'cannot fund a card (sandbox: account id ending 002, insufficient balance)',
  ACCOUNT_CLOSED: 'cannot fund a card (sandbox: account id ending 003, account closed)',
  DUPLICATE: 'is listed more than once',
};

export const ineligible = (field: string, accountId: string, reason: IneligibleReason, extra = ''): DomainError =>
  new DomainError('FUNDING_SOURCE_INELIGIBLE', 'validation', `${field}: ${accountId} ${reasonText[reason]}${extra}.`, {
    field,
    accountId,
    reason,
  });

/** The reference's funding-source suffix magic (sandbox issuer; the only issuer, decision 0015). */
export const suffixReason = (accountId: string): IneligibleReason | null => {
  const suffix = accountId.slice(-3);
  if (suffix === '002') return 'INSUFFICIENT_BALANCE';
  if (suffix === '003') return 'ACCOUNT_CLOSED';
  return null;
};

/**
 * Checks every requested source in order and answers their one currency. `cardCurrency` is the
 * card's when the sources of an existing card are replaced (they must stay in it).
 */
export const eligibleCurrencyOf = (
  field: string,
  requested: readonly string[],
  facts: readonly FundingSourceFacts[],
  rules: { cardholderId: string; eligibleCurrencies: readonly string[]; cardCurrency?: string },
): string => {
  if (requested.length === 0) throw invalidInput(`${field} must list at least one internal account id.`, { field });
  if (requested.length > FUNDING_SOURCES_MAX)
    throw invalidInput(`${field} lists ${requested.length} accounts; at most ${FUNDING_SOURCES_MAX}.`, { field });
  const seen = new Set<string>();
  let currency = rules.cardCurrency;
  for (const accountId of requested) {
    if (seen.has(accountId)) throw ineligible(field, accountId, 'DUPLICATE');
    seen.add(accountId);
    const fact = facts.find((candidate) => candidate.accountId === accountId);
    if (!fact?.found) throw ineligible(field, accountId, 'NOT_FOUND');
    if (fact.customerId !== rules.cardholderId) throw ineligible(field, accountId, 'NOT_OWNED_BY_CARDHOLDER', ` ${rules.cardholderId}`);
    const magic = suffixReason(accountId);
    if (magic) throw ineligible(field, accountId, magic);
    if (fact.status !== 'ACTIVE') throw ineligible(field, accountId, 'ACCOUNT_NOT_ACTIVE', ` (it is ${fact.status})`);
    const accountCurrency = fact.currency ?? '';
    if (!rules.eligibleCurrencies.includes(accountCurrency)) {
      throw ineligible(
        field,
        accountId,
        'CURRENCY_NOT_CARD_ELIGIBLE',
        ` (${accountCurrency}; eligible: ${rules.eligibleCurrencies.join(', ')})`,
      );
    }
    if (currency !== undefined && accountCurrency !== currency)
      throw ineligible(
        field,
        accountId,
        'CURRENCY_MISMATCH',
        ` (${accountCurrency}, not ${currency}); every source of a card shares one currency`,
      );
    currency = accountCurrency;
  }
  return currency as string;
};
