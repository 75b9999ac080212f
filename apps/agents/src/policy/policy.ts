import { type AgentPolicy, type AgentPolicyUpdate, invalidInput, isSupportedCurrency, parseMinorUnits } from '@corridor/contracts';

// The rules a policy must meet beyond its shape (the gateway's DTOs check the shape), and the
// partial update of PATCH /agents/{id}/policy: omitted members keep their values, permissions
// replace the list, spendingLimits merge member by member (null removes a daily or monthly limit),
// accountRestrictions and approvalThresholds replace what was there.

const AMOUNT_MAX = 9_000_000_000_000_000n;

/** Limits arrive as the reference's JSON integers; null removes a daily or monthly limit where it may. */
const requireAmount = (value: unknown, field: string, nullable: boolean): void => {
  if (value === undefined || (nullable && value === null)) return;
  parseMinorUnits(value, { field, min: 0n, max: AMOUNT_MAX, type: 'number' });
};

export const validatePolicy = (policy: AgentPolicy): AgentPolicy => {
  const limits = policy.spendingLimits;
  if (!isSupportedCurrency(limits.currency))
    throw invalidInput(
      `policy.spendingLimits.currency ${JSON.stringify(limits.currency)} is not a currency Corridor knows; use a code such as USD.`,
      { field: 'policy.spendingLimits.currency' },
    );
  requireAmount(limits.perTransactionLimit, 'policy.spendingLimits.perTransactionLimit', false);
  if (limits.perTransactionLimit === undefined)
    throw invalidInput('policy.spendingLimits.perTransactionLimit is required.', { field: 'policy.spendingLimits.perTransactionLimit' });
  requireAmount(limits.dailyLimit, 'policy.spendingLimits.dailyLimit', true);
  requireAmount(limits.monthlyLimit, 'policy.spendingLimits.monthlyLimit', true);
  requireAmount(limits.dailyTransactionLimit, 'policy.spendingLimits.dailyTransactionLimit', false);
  const threshold = policy.approvalThresholds;
  if (threshold) {
    requireAmount(threshold.amount, 'policy.approvalThresholds.amount', true);
    if (threshold.amount != null && threshold.currency === undefined)
      throw invalidInput('policy.approvalThresholds.currency is required when amount is set.', {
        field: 'policy.approvalThresholds.currency',
      });
    if (threshold.currency !== undefined && !isSupportedCurrency(threshold.currency))
      throw invalidInput(`policy.approvalThresholds.currency ${JSON.stringify(threshold.currency)} is not a currency Corridor knows.`, {
        field: 'policy.approvalThresholds.currency',
      });
  }
  for (const [index, rule] of (policy.accountRestrictions?.accountRules ?? []).entries())
    requireAmount(rule.perTransactionLimit, `policy.accountRestrictions.accountRules[${index}].perTransactionLimit`, true);
  return { ...policy, permissions: [...new Set(policy.permissions)] };
};

export const applyPolicyUpdate = (current: AgentPolicy, update: AgentPolicyUpdate): AgentPolicy => {
  const limits = { ...current.spendingLimits };
  for (const [key, value] of Object.entries(update.spendingLimits ?? {})) {
    if (value === undefined) continue;
    (limits as Record<string, unknown>)[key] = value;
  }
  const next: AgentPolicy = {
    permissions: update.permissions ?? current.permissions,
    defaultExecutionMode: update.defaultExecutionMode ?? current.defaultExecutionMode,
    spendingLimits: limits,
    ...(update.accountRestrictions !== undefined
      ? { accountRestrictions: update.accountRestrictions }
      : current.accountRestrictions !== undefined
        ? { accountRestrictions: current.accountRestrictions }
        : {}),
    ...(update.approvalThresholds !== undefined
      ? { approvalThresholds: update.approvalThresholds }
      : current.approvalThresholds !== undefined
        ? { approvalThresholds: current.approvalThresholds }
        : {}),
  };
  return validatePolicy(next);
};
