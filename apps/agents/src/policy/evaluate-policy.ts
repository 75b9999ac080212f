import {
  type AgentExecutionMode,
  type AgentPermission,
  type AgentPolicy,
  currencies,
  DomainError,
  toWireMinorUnits,
} from '@corridor/contracts';
import type { StoredPolicy } from './policy';

// What an agent's policy says about one money-moving request, in the order a person reads a
// policy: (1) the permission, (2) the account (allowedAccountIds), (3) the per-transaction limit
// (an account rule's own limit overrides the policy's), (4) the daily count, (5) the daily amount,
// (6) the monthly amount, then (7) whether it runs at once or waits for the platform (the account
// rule's mode, else defaultExecutionMode; an approval threshold forces approval above it).
//
// Every amount limit is in the policy's currency (spendingLimits.currency); a request in another
// currency is converted at the rate the caller fetched at evaluation time, rounded UP, so a
// conversion never lets an agent spend more than its limit. A limit is inclusive: spending
// exactly the limit passes, one minor unit over is refused.

/** Converts minor units of one currency into minor units of another: ceil(amount × numerator / denominator). */
export type Rate = { numerator: bigint; denominator: bigint };

/** The agent's counters for the current day and month (usage.ts resets them by date). */
export type UsageCounters = { dailyCount: number; dailySpend: bigint; monthlySpend: bigint };

export type SpendRequest = {
  permission: AgentPermission;
  /** The customer's internal account the money leaves or enters. */
  accountId: string;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
};

/** Rates from the request's currency, keyed by target currency; the request's own currency needs none. */
export type Rates = Readonly<Record<string, Rate>>;

export type SpendDecision = {
  executionMode: AgentExecutionMode;
  /** The request in the policy's currency: what the usage counters grow by. */
  charge: bigint;
};

const forbidden = (message: string, details: Record<string, unknown>) => new DomainError('FORBIDDEN', 'forbidden', message, details);
const velocity = (message: string, details: Record<string, unknown>) =>
  new DomainError('VELOCITY_LIMIT_EXCEEDED', 'forbidden', message, details);

export const convert = (amount: bigint, from: string, to: string, rates: Rates): bigint => {
  if (from === to) return amount;
  const rate = rates[to];
  if (!rate)
    throw new DomainError('INTERNAL_ERROR', 'internal', `No exchange rate from ${from} to ${to} was fetched to evaluate the agent policy.`);
  return (amount * rate.numerator + rate.denominator - 1n) / rate.denominator;
};

/**
 * A rate as payments shows it (sending-currency units per one receiving-currency unit, a decimal)
 * turned into a minor-unit conversion from the sending currency into the receiving one.
 */
export const rateFromQuoteRate = (exchangeRate: string, from: string, to: string): Rate => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(exchangeRate);
  if (!match) throw new Error(`Exchange rate ${exchangeRate} is not a positive decimal.`);
  const fraction = match[2] ?? '';
  const scaled = BigInt(`${match[1]}${fraction}`);
  if (scaled === 0n) throw new Error(`Exchange rate ${from}→${to} is zero.`);
  const decimalsFrom = currencies[from]?.decimals ?? 2;
  const decimalsTo = currencies[to]?.decimals ?? 2;
  // amountTo = amountFrom / 10^dFrom / rate × 10^dTo, with rate = scaled / 10^fraction.length
  return { numerator: 10n ** BigInt(fraction.length + decimalsTo), denominator: scaled * 10n ** BigInt(decimalsFrom) };
};

export const evaluateSpend = (policy: StoredPolicy, request: SpendRequest, usage: UsageCounters, rates: Rates): SpendDecision => {
  const { spendingLimits: limits } = policy;
  if (!policy.permissions.includes(request.permission)) {
    throw forbidden(`The agent's policy does not grant ${request.permission}, which this operation needs.`, {
      requiredPermission: request.permission,
    });
  }
  const allowed = policy.accountRestrictions?.allowedAccountIds;
  if (allowed && !allowed.includes(request.accountId)) {
    throw forbidden(`The agent's policy does not allow account ${request.accountId} (accountRestrictions.allowedAccountIds).`, {
      accountId: request.accountId,
    });
  }
  const rule = policy.accountRestrictions?.accountRules?.find((candidate) => candidate.accountId === request.accountId);
  const charge = convert(request.amount, request.currency, limits.currency, rates);
  const perTransaction = rule?.perTransactionLimit ?? limits.perTransactionLimit;
  const inPolicy = (value: bigint) => `${value} ${limits.currency} minor units`;
  if (charge > BigInt(perTransaction)) {
    const which =
      rule?.perTransactionLimit != null ? `the per-transaction limit of account ${request.accountId}` : 'the per-transaction limit';
    throw forbidden(`This request is ${inPolicy(charge)}, above ${which} of ${inPolicy(BigInt(perTransaction))}.`, {
      limit: 'perTransactionLimit',
      amount: Number(charge),
      perTransactionLimit: toWireMinorUnits(BigInt(perTransaction)),
    });
  }
  if (limits.dailyTransactionLimit !== undefined && usage.dailyCount + 1 > limits.dailyTransactionLimit) {
    throw velocity(
      `The agent has made ${usage.dailyCount} of its ${limits.dailyTransactionLimit} transactions allowed today (dailyTransactionLimit).`,
      { limit: 'dailyTransactionLimit', dailyTransactionLimit: limits.dailyTransactionLimit },
    );
  }
  if (limits.dailyLimit != null && usage.dailySpend + charge > BigInt(limits.dailyLimit)) {
    throw velocity(
      `This request (${inPolicy(charge)}) would bring today's spend to ${inPolicy(usage.dailySpend + charge)}, above the daily limit ` +
        `of ${inPolicy(BigInt(limits.dailyLimit))}.`,
      { limit: 'dailyLimit', dailyLimit: toWireMinorUnits(BigInt(limits.dailyLimit)) },
    );
  }
  if (limits.monthlyLimit != null && usage.monthlySpend + charge > BigInt(limits.monthlyLimit)) {
    throw velocity(
      `This request (${inPolicy(charge)}) would bring this month's spend to ${inPolicy(usage.monthlySpend + charge)}, above the monthly ` +
        `limit of ${inPolicy(BigInt(limits.monthlyLimit))}.`,
      { limit: 'monthlyLimit', monthlyLimit: toWireMinorUnits(BigInt(limits.monthlyLimit)) },
    );
  }
  return { executionMode: executionModeOf(policy, request, rule?.executionMode, rates), charge };
};

const executionModeOf = (
  policy: StoredPolicy,
  request: SpendRequest,
  ruleMode: AgentExecutionMode | undefined,
  rates: Rates,
): AgentExecutionMode => {
  const mode = ruleMode ?? policy.defaultExecutionMode;
  const threshold = policy.approvalThresholds;
  if (mode === 'APPROVAL_REQUIRED' || threshold?.amount == null) return mode;
  const currency = threshold.currency ?? policy.spendingLimits.currency;
  return convert(request.amount, request.currency, currency, rates) > BigInt(threshold.amount) ? 'APPROVAL_REQUIRED' : mode;
};

/** The currencies a request in `currency` must be converted into for this policy. */
export const currenciesToConvertInto = (policy: StoredPolicy, currency: string): string[] =>
  [
    ...new Set([
      policy.spendingLimits.currency,
      ...(policy.approvalThresholds?.amount != null ? [policy.approvalThresholds.currency ?? policy.spendingLimits.currency] : []),
    ]),
  ].filter((code) => code !== currency);

/** A policy granting none of the permissions a route accepts is refused the operation (403), whatever its amount. */
export const requirePermission = (policy: Pick<AgentPolicy, 'permissions'>, accepted: readonly AgentPermission[] | null): void => {
  if (accepted !== null && !accepted.some((permission) => policy.permissions.includes(permission))) {
    throw forbidden(`The agent's policy does not grant ${accepted.join(' or ')}, which this operation needs.`, {
      requiredPermission: accepted.join(' or '),
    });
  }
};
