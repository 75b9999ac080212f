import {
  type AgentAccountRestrictions,
  type AgentAccountRule,
  type AgentApprovalThresholds,
  type AgentPolicy,
  type AgentPolicyUpdate,
  type AgentSpendingLimits,
  invalidInput,
  isSupportedCurrency,
  parseMinorUnits,
  toWireMinorUnits,
} from '@corridor/contracts';

// The rules a policy must meet beyond its shape (the gateway's DTOs check the shape), and the
// partial update of PATCH /agents/{id}/policy: omitted members keep their values, permissions
// replace the list, spendingLimits merge member by member (null removes a daily or monthly limit),
// accountRestrictions and approvalThresholds replace what was there.
//
// The agent stream stores the policy with every amount limit as a decimal string of minor units,
// as every stream stores money (STYLE rule 9); the wire keeps the reference's JSON integers, and
// renderPolicy is the one way back. dailyTransactionLimit counts transactions, not money: it stays
// a number. Events written before this change carry numbers; storedPolicyOf lifts them on every
// read of the stream (the decider's evolve and the read model's).

type Amount = string;
/** Members are converted in place, so a policy keeps its members' order between the wire and the stream. */
type Stored<T, Members extends keyof T> = Omit<T, Members> & { [Member in Members]: Exclude<T[Member], number> | Amount };
export type StoredSpendingLimits = Stored<AgentSpendingLimits, 'perTransactionLimit' | 'dailyLimit' | 'monthlyLimit'>;
export type StoredAccountRule = Stored<AgentAccountRule, 'perTransactionLimit'>;
export type StoredPolicy = Omit<AgentPolicy, 'spendingLimits' | 'accountRestrictions' | 'approvalThresholds'> & {
  spendingLimits: StoredSpendingLimits;
  accountRestrictions?: Omit<AgentAccountRestrictions, 'accountRules'> & { accountRules?: StoredAccountRule[] };
  approvalThresholds?: Stored<AgentApprovalThresholds, 'amount'>;
};

const AMOUNT_MEMBERS: ReadonlySet<string> = new Set(['perTransactionLimit', 'dailyLimit', 'monthlyLimit', 'amount']);

/** The same object with each amount member (not null, not absent) converted, in the members' order. */
const convertAmounts = <Out>(object: object, convert: (value: number | string) => number | string): Out =>
  Object.fromEntries(
    Object.entries(object).map(([member, value]) => [
      member,
      AMOUNT_MEMBERS.has(member) && (typeof value === 'number' || typeof value === 'string') ? convert(value) : value,
    ]),
  ) as Out;

/** Both ways share this walk over the policy's three places that hold amounts. */
const withAmounts = <Out>(policy: AgentPolicy | StoredPolicy, convert: (value: number | string) => number | string): Out => {
  const { accountRestrictions, approvalThresholds } = policy;
  return {
    ...policy,
    spendingLimits: convertAmounts(policy.spendingLimits, convert),
    ...(accountRestrictions !== undefined
      ? {
          accountRestrictions: {
            ...accountRestrictions,
            ...(accountRestrictions.accountRules !== undefined
              ? { accountRules: accountRestrictions.accountRules.map((rule: object) => convertAmounts(rule, convert)) }
              : {}),
          },
        }
      : {}),
    ...(approvalThresholds !== undefined ? { approvalThresholds: convertAmounts(approvalThresholds, convert) } : {}),
  } as Out;
};

/**
 * The stored form of a policy: a validated wire policy, or one an older event stored with numbers
 * (always safe integers: validatePolicy refused anything else). A policy already stored is unchanged.
 */
export const storedPolicyOf = (policy: AgentPolicy | StoredPolicy): StoredPolicy =>
  withAmounts(policy, (value) => (typeof value === 'number' ? BigInt(value).toString() : value));

/** The policy as the reference's wire shows it: amounts as JSON integers of minor units. */
export const renderPolicy = (policy: StoredPolicy): AgentPolicy => withAmounts(policy, (value) => toWireMinorUnits(BigInt(value)));

const AMOUNT_MAX = 9_000_000_000_000_000n;

/** Limits arrive as the reference's JSON integers; null removes a daily or monthly limit where it may. */
const requireAmount = (value: unknown, field: string, nullable: boolean): void => {
  if (value === undefined || (nullable && value === null)) return;
  parseMinorUnits(value, { field, min: 0n, max: AMOUNT_MAX, type: 'number' });
};

/** A wire policy checked and turned into its stored form. */
export const validatePolicy = (policy: AgentPolicy): StoredPolicy => {
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
  return storedPolicyOf({ ...policy, permissions: [...new Set(policy.permissions)] });
};

/** The update arrives in the wire's form, so it is merged over the current policy as the wire shows it, then validated and stored again. */
export const applyPolicyUpdate = (stored: StoredPolicy, update: AgentPolicyUpdate): StoredPolicy => {
  const current = renderPolicy(stored);
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
