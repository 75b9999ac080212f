// Usage counts today's and this month's spend on the service's clock; a new day (or month) starts at zero.
import { currentUsage, periodOf, renderUsage, type StoredUsage } from './usage';

const stored: StoredUsage = { day: '2026-03-31', dailyCount: 2, dailySpend: 500n, month: '2026-03', monthlySpend: 9_000n };

describe('usage', () => {
  it('counts the stored day and month while they are today', () => {
    expect(currentUsage(stored, new Date('2026-03-31T23:59:59.999Z'))).toEqual({ dailyCount: 2, dailySpend: 500n, monthlySpend: 9_000n });
  });
  it('resets the day at midnight UTC, keeping the month', () => {
    expect(currentUsage({ ...stored, day: '2026-03-30' }, new Date('2026-03-31T00:00:00.000Z'))).toEqual({ dailyCount: 0, dailySpend: 0n, monthlySpend: 9_000n });
  });
  it('resets both on the first of the month', () => {
    expect(currentUsage(stored, new Date('2026-04-01T00:00:00.000Z'))).toEqual({ dailyCount: 0, dailySpend: 0n, monthlySpend: 0n });
  });
  it('starts at zero with nothing stored', () => {
    expect(currentUsage(undefined, new Date())).toEqual({ dailyCount: 0, dailySpend: 0n, monthlySpend: 0n });
  });
  it('shows the next reset date and month', () => {
    expect(renderUsage({ dailyCount: 1, dailySpend: 5n, monthlySpend: 7n }, new Date('2026-12-31T10:00:00Z'))).toEqual({
      dailyTransactionCount: 1, dailySpend: 5, dailyResetDate: '2027-01-01', monthlySpend: 7, monthlyResetMonth: '2027-01',
    });
    expect(periodOf(new Date('2026-12-31T10:00:00Z'))).toEqual({ day: '2026-12-31', month: '2026-12' });
  });
});
