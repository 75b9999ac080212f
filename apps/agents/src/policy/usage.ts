import type { AgentUsageWire } from '@corridor/contracts';
import type { UsageCounters } from './evaluate-policy';

// Usage counters belong to a day and a month of the service's clock (UTC): the ledger keeps one
// row per agent and day (and month) and reads only today's, so nothing resets them — another
// day's counters are simply not today's (usage-ledger.int.spec.ts moves the clock over midnight).

export type UsagePeriod = { day: string; month: string };

export const periodOf = (now: Date): UsagePeriod => {
  const iso = now.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
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
