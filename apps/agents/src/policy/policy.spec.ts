// PATCH /agents/{id}/policy: omitted members keep their values, permissions replace the list,
// null removes a daily or monthly limit; a policy that cannot be evaluated is refused. A policy is
// stored with its amount limits as decimal strings, an older event's numbers are lifted to them,
// and the wire gets back exactly the integers it sent.
import type { AgentPolicy } from '@corridor/contracts';
import { applyPolicyUpdate, renderPolicy, type StoredPolicy, storedPolicyOf, validatePolicy } from './policy';

const current: AgentPolicy = {
  permissions: ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 50_000, dailyLimit: 100_000, dailyTransactionLimit: 5, monthlyLimit: 1_000_000 },
  approvalThresholds: { currency: 'USD', amount: 20_000 },
};
const stored: StoredPolicy = {
  permissions: ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: {
    currency: 'USD',
    perTransactionLimit: '50000',
    dailyLimit: '100000',
    dailyTransactionLimit: 5,
    monthlyLimit: '1000000',
  },
  approvalThresholds: { currency: 'USD', amount: '20000' },
};

describe('applyPolicyUpdate', () => {
  it('keeps omitted members', () => {
    expect(applyPolicyUpdate(stored, {})).toEqual(stored);
  });
  it('replaces the permission list', () => {
    expect(applyPolicyUpdate(stored, { permissions: ['EXECUTE_QUOTES'] }).permissions).toEqual(['EXECUTE_QUOTES']);
  });
  it('merges spending limits member by member; null removes daily and monthly limits', () => {
    expect(
      applyPolicyUpdate(stored, { spendingLimits: { perTransactionLimit: 1, dailyLimit: null, monthlyLimit: null } }).spendingLimits,
    ).toEqual({
      currency: 'USD',
      perTransactionLimit: '1',
      dailyLimit: null,
      dailyTransactionLimit: 5,
      monthlyLimit: null,
    });
  });
  it('replaces thresholds and restrictions when given', () => {
    const next = applyPolicyUpdate(stored, {
      approvalThresholds: { amount: null },
      accountRestrictions: { allowedAccountIds: ['InternalAccount:x'] },
    });
    expect(next.approvalThresholds).toEqual({ amount: null });
    expect(next.accountRestrictions).toEqual({ allowedAccountIds: ['InternalAccount:x'] });
  });
});

describe('validatePolicy', () => {
  it.each([
    [
      'an unknown currency',
      { ...current, spendingLimits: { ...current.spendingLimits, currency: 'XXX' } },
      'policy.spendingLimits.currency',
    ],
    ['a negative limit', { ...current, spendingLimits: { ...current.spendingLimits, dailyLimit: -1 } }, 'policy.spendingLimits.dailyLimit'],
    [
      'a fractional limit',
      { ...current, spendingLimits: { ...current.spendingLimits, perTransactionLimit: 1.5 } },
      'policy.spendingLimits.perTransactionLimit',
    ],
    ['a threshold amount without its currency', { ...current, approvalThresholds: { amount: 5 } }, 'policy.approvalThresholds.currency'],
  ])('refuses %s with a 400 naming the field', (_name, policy, field) => {
    expect(() => validatePolicy(policy as AgentPolicy)).toThrow(expect.objectContaining({ status: 400, details: { field } }));
  });
  it('stores every amount limit as a decimal string and keeps the count a number', () => {
    expect(validatePolicy(current)).toEqual(stored);
  });
  it('drops repeated permissions', () => {
    expect(validatePolicy({ ...current, permissions: ['CREATE_TRANSFERS', 'CREATE_TRANSFERS'] }).permissions).toEqual(['CREATE_TRANSFERS']);
  });
});

describe('storedPolicyOf (the upcaster of policies stored with numbers)', () => {
  const rules = {
    accountRules: [
      { accountId: 'InternalAccount:a', perTransactionLimit: 700 },
      { accountId: 'InternalAccount:b', perTransactionLimit: null },
    ],
  };
  it('lifts an older event’s numbers in every place that holds an amount, keeping nulls', () => {
    expect(storedPolicyOf({ ...current, accountRestrictions: rules })).toEqual({
      ...stored,
      accountRestrictions: {
        accountRules: [
          { accountId: 'InternalAccount:a', perTransactionLimit: '700' },
          { accountId: 'InternalAccount:b', perTransactionLimit: null },
        ],
      },
    });
  });
  it('leaves a policy already stored as it is', () => {
    expect(storedPolicyOf(stored)).toEqual(stored);
  });
  it('keeps a limit removed with null, and one never set absent', () => {
    const removed = storedPolicyOf({
      ...current,
      spendingLimits: { currency: 'USD', perTransactionLimit: 9_000_000_000_000_000, dailyLimit: null },
    });
    expect(removed.spendingLimits).toStrictEqual({ currency: 'USD', perTransactionLimit: '9000000000000000', dailyLimit: null });
  });
});

describe('renderPolicy', () => {
  it('gives the wire the integers it sent, member for member and in the same order', () => {
    const sent: AgentPolicy = {
      ...current,
      accountRestrictions: { allowedAccountIds: null, accountRules: [{ accountId: 'InternalAccount:a', perTransactionLimit: 700 }] },
    };
    const rendered = renderPolicy(validatePolicy(sent));
    expect(rendered).toStrictEqual(sent);
    expect(JSON.stringify(rendered)).toBe(JSON.stringify(sent));
  });
});
