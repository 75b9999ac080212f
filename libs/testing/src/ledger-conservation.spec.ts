// Pins down what the conservation checker catches: money created or lost in one currency, a read
// model that drifted from its events, a missing row, a negative balance; and that balanced books pass.
import { findLedgerDiscrepancies, formatLedgerDiscrepancies, type LedgerAccountRow } from './ledger-conservation';

const alice = 'InternalAccount:0196f1a0-0000-7000-8000-000000000001';
const bob = 'InternalAccount:0196f1a0-0000-7000-8000-000000000002';
const fundingRail = 'SystemAccount:FUNDING_RAIL:USD';
const payoutRail = 'SystemAccount:PAYOUT_RAIL:USD';

const opened = (accountId: string) => ({ type: 'InternalAccountOpened', data: { accountId, currency: 'USD' } });
const credited = (accountId: string, amount: string, counterAccountId = fundingRail, currency = 'USD') => ({
  type: 'AccountCredited',
  data: { accountId, amount, currency, counterAccountId },
});
const held = (accountId: string, amount: string) => ({
  type: 'FundsHeld',
  data: { accountId, amount, currency: 'USD', counterAccountId: payoutRail },
});
const settled = (accountId: string, amount: string) => ({
  type: 'HoldSettled',
  data: { accountId, amount, currency: 'USD', counterAccountId: payoutRail },
});
const row = (id: string, available: string, held = '0', currency = 'USD'): LedgerAccountRow => ({ id, currency, available, held });

const events = [opened(alice), opened(bob), credited(alice, '1000'), credited(bob, '500'), held(alice, '300'), settled(alice, '200')];

describe('findLedgerDiscrepancies', () => {
  it('passes balanced books, counting held funds in the balance the postings explain', () =>
    // alice: +1000, hold 300, settle 200 of it (the other 100 stays held here) → available 700, held 100.
    expect(findLedgerDiscrepancies(events, [row(alice, '700', '100'), row(bob, '500')])).toEqual([]));

  it('reports money created in one currency and lost in another when a movement’s legs sit in different currencies', () => {
    const crossed = credited(bob, '5', 'SystemAccount:FUNDING_RAIL:EUR');
    expect(findLedgerDiscrepancies([...events, crossed], [row(alice, '700', '100'), row(bob, '505')])).toEqual([
      'currency USD: postings sum to 5, expected 0',
      'currency EUR: postings sum to -5, expected 0',
      'account SystemAccount:FUNDING_RAIL:EUR: holds EUR but has USD postings',
    ]);
  });

  it('reports a read-model balance that differs from the sum of the account’s postings, with expected and actual', () =>
    expect(findLedgerDiscrepancies(events, [row(alice, '700', '100'), row(bob, '499')])).toEqual([
      `account ${bob} (USD): expected totalBalance 500 from its postings, actual 499`,
    ]));

  it('reports postings of an internal account that has no read-model row', () =>
    expect(findLedgerDiscrepancies(events, [row(alice, '700', '100')])).toEqual([
      `account ${bob}: has postings summing to 500 but no read-model row`,
    ]));

  it('reports a negative balance even when the sum agrees', () =>
    expect(findLedgerDiscrepancies(events, [row(alice, '-100', '900'), row(bob, '500')])).toEqual([
      `account ${alice} (USD): negative balance, available -100, held 900`,
    ]));
});

describe('formatLedgerDiscrepancies', () => {
  it('lists each discrepancy and says how many were left out', () => {
    const text = formatLedgerDiscrepancies(Array.from({ length: 60 }, (_, index) => `problem ${index}`));
    expect(text.split('\n')[0]).toBe('The ledger does not balance (60 discrepancies):');
    expect(text).toContain('  - problem 49');
    expect(text).not.toContain('problem 50\n');
    expect(text.endsWith('… and 10 more')).toBe(true);
  });
});
