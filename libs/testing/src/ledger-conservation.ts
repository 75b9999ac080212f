import { type Posting, postingsOf, type StoredLedgerEvent, sumPostings } from '@corridor/contracts';
import { Client } from 'pg';

// The ledger's two books must agree after any scenario: per currency every posting has its
// opposite (the sum is zero), and every internal account's balance as the read model shows it is
// exactly the sum of its own postings. Later issues call assertLedgerConserved at the end of their
// suites, so a payment flow that loses or invents money fails the test that caused it.

/** An internal account as the read model stores it; available and held are decimal strings of minor units. */
export type LedgerAccountRow = { id: string; currency: string; available: string; held: string };

const SYSTEM_ACCOUNT_PREFIX = 'SystemAccount:';
/** Enough lines to see the pattern of a failure without burying it. */
const MAX_LISTED_DISCREPANCIES = 50;

/** A system account names its currency in its id (`SystemAccount:<KIND>:<CUR>`). */
const systemAccountCurrency = (accountId: string): string | undefined =>
  accountId.startsWith(SYSTEM_ACCOUNT_PREFIX) ? accountId.split(':')[2] : undefined;

/**
 * Every way the events and the read model disagree, one readable line each; empty when the books
 * balance. Legs are summed per currency of the account they land on (the read model's currency
 * for an internal account, the id's for a system account), so a movement whose two legs sit in
 * different currencies shows up as money created in one and lost in the other.
 */
export const findLedgerDiscrepancies = (events: readonly StoredLedgerEvent[], accounts: readonly LedgerAccountRow[]): string[] => {
  const postings = events.flatMap(postingsOf);
  const rows = new Map(accounts.map((account) => [account.id, account]));
  const currencyOf = (posting: Posting): string =>
    rows.get(posting.accountId)?.currency ?? systemAccountCurrency(posting.accountId) ?? posting.currency;
  const problems: string[] = [];
  for (const [currency, sum] of sumPostings(postings, currencyOf)) {
    if (sum !== 0n) problems.push(`currency ${currency}: postings sum to ${sum}, expected 0`);
  }
  const mismatched = new Map<string, string>();
  for (const posting of postings) {
    const held = currencyOf(posting);
    if (posting.currency !== held)
      mismatched.set(
        `${posting.accountId}|${posting.currency}`,
        `account ${posting.accountId}: holds ${held} but has ${posting.currency} postings`,
      );
  }
  problems.push(...mismatched.values());
  const perAccount = sumPostings(postings, (posting) => posting.accountId);
  for (const account of accounts) {
    const available = BigInt(account.available);
    const held = BigInt(account.held);
    const expected = perAccount.get(account.id) ?? 0n;
    // Postings move totalBalance (available + held); a hold only shifts money between the two.
    if (available + held !== expected) {
      problems.push(
        `account ${account.id} (${account.currency}): expected totalBalance ${expected} from its postings, actual ${available + held}`,
      );
    }
    if (available < 0n || held < 0n)
      problems.push(`account ${account.id} (${account.currency}): negative balance, available ${available}, held ${held}`);
  }
  for (const [accountId, sum] of perAccount) {
    if (!accountId.startsWith(SYSTEM_ACCOUNT_PREFIX) && !rows.has(accountId)) {
      problems.push(`account ${accountId}: has postings summing to ${sum} but no read-model row`);
    }
  }
  return problems;
};

export const formatLedgerDiscrepancies = (problems: readonly string[]): string => {
  const shown = problems.slice(0, MAX_LISTED_DISCREPANCIES).map((problem) => `  - ${problem}`);
  const more = problems.length > shown.length ? [`  … and ${problems.length - shown.length} more`] : [];
  return [`The ledger does not balance (${problems.length} discrepancies):`, ...shown, ...more].join('\n');
};

export type LedgerConservationOptions = {
  connectionString: string;
  /** The accounts service's schema (its event table and internal_accounts read model). */
  schema?: string;
};

export type LedgerSummary = { events: number; accounts: number; postings: number };

/**
 * Reads every internal-account event and read-model row of one database and throws with the
 * discrepancies when the books do not balance. Returns a summary so a caller can also assert that
 * there was something to check.
 */
export const assertLedgerConserved = async ({
  connectionString,
  schema = 'accounts',
}: LedgerConservationOptions): Promise<LedgerSummary> => {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Schema ${schema} is not a plain SQL identifier.`);
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const events = (
      await client.query<StoredLedgerEvent>(
        `SELECT type, data FROM ${schema}.events WHERE stream_id LIKE 'InternalAccount:%' ORDER BY global_position`,
      )
    ).rows;
    const accounts = (
      await client.query<LedgerAccountRow>(`SELECT id, currency, available, held FROM ${schema}.internal_accounts ORDER BY id`)
    ).rows;
    const problems = findLedgerDiscrepancies(events, accounts);
    if (problems.length > 0) throw new Error(formatLedgerDiscrepancies(problems));
    return { events: events.length, accounts: accounts.length, postings: events.flatMap(postingsOf).length };
  } finally {
    await client.end();
  }
};
