import type { AgentUsageWire } from '@corridor/contracts';
import type { UsageCounters } from './evaluate-policy';

// Usage counters belong to a day and a month of the service's clock (UTC). A counter stored for
// another day (or month) than today's is zero: nothing resets them, they are simply not today's.

export type UsagePeriod = { day: string; month: string };

export const periodOf = (now: Date): UsagePeriod => {
  const iso = now.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
};

/** Stored counters, each with the day or month it counts. */
export type StoredUsage = { day: string; dailyCount: number; dailySpend: bigint; month: string; monthlySpend: bigint };

export const currentUsage = (stored: StoredUsage | undefined, now: Date): UsageCounters => {
  const { day, month } = periodOf(now);
  return {
    dailyCount: stored?.day === day ? stored.dailyCount : 0,
    dailySpend: stored?.day === day ? stored.dailySpend : 0n,
    monthlySpend: stored?.month === month ? stored.monthlySpend : 0n,
  };
};

/** The reference's AgentUsage: today's counters and when they next reset (tomorrow, next month). */
export const renderUsage = (counters: UsageCounters, now: Date): AgentUsageWire => {
  const tomorrow = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return {
    dailyTransactionCount: counters.dailyCount,
    dailySpend: Number(counters.dailySpend),
    dailyResetDate: tomorrow.toISOString().slice(0, 10),
    monthlySpend: Number(counters.monthlySpend),
    monthlyResetMonth: nextMonth.toISOString().slice(0, 7),
  };
};
