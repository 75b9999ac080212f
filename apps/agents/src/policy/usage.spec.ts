// Usage counts today's and this month's spend on the service's clock; a new day (or month) starts at zero.
import { periodOf, renderUsage } from './usage';

describe('usage', () => {
  it('keys a moment by its UTC day and month', () => {
    expect(periodOf(new Date('2026-03-31T23:59:59.999Z'))).toEqual({ day: '2026-03-31', month: '2026-03' });
    expect(periodOf(new Date('2026-04-01T00:00:00.000Z'))).toEqual({ day: '2026-04-01', month: '2026-04' });
  });
  it('shows the next reset date and month', () => {
    expect(renderUsage({ dailyCount: 1, dailySpend: 5n, monthlySpend: 7n }, new Date('2026-12-31T10:00:00Z'))).toEqual({
      dailyTransactionCount: 1,
      dailySpend: 5,
      dailyResetDate: '2027-01-01',
      monthlySpend: 7,
      monthlyResetMonth: '2027-01',
    });
    expect(periodOf(new Date('2026-12-31T10:00:00Z'))).toEqual({ day: '2026-12-31', month: '2026-12' });
  });
});
