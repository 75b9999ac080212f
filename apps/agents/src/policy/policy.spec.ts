// PATCH /agents/{id}/policy: omitted members keep their values, permissions replace the list,
// null removes a daily or monthly limit; a policy that cannot be evaluated is refused.
import type { AgentPolicy } from '@corridor/contracts';
import { applyPolicyUpdate, validatePolicy } from './policy';

const current: AgentPolicy = {
  permissions: ['CREATE_TRANSFERS', 'VIEW_TRANSACTIONS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 50_000, dailyLimit: 100_000, dailyTransactionLimit: 5, monthlyLimit: 1_000_000 },
  approvalThresholds: { currency: 'USD', amount: 20_000 },
};

describe('applyPolicyUpdate', () => {
  it('keeps omitted members', () => {
    expect(applyPolicyUpdate(current, {})).toEqual(current);
  });
  it('replaces the permission list', () => {
    expect(applyPolicyUpdate(current, { permissions: ['EXECUTE_QUOTES'] }).permissions).toEqual(['EXECUTE_QUOTES']);
  });
  it('merges spending limits member by member; null removes daily and monthly limits', () => {
    expect(
      applyPolicyUpdate(current, { spendingLimits: { perTransactionLimit: 1, dailyLimit: null, monthlyLimit: null } }).spendingLimits,
    ).toEqual({
      currency: 'USD',
      perTransactionLimit: 1,
      dailyLimit: null,
      dailyTransactionLimit: 5,
      monthlyLimit: null,
    });
  });
  it('replaces thresholds and restrictions when given', () => {
    const next = applyPolicyUpdate(current, {
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
  it('drops repeated permissions', () => {
    expect(validatePolicy({ ...current, permissions: ['CREATE_TRANSFERS', 'CREATE_TRANSFERS'] }).permissions).toEqual(['CREATE_TRANSFERS']);
  });
});
