import { storedEventsFilter } from './stored-events-query';

describe('storedEventsFilter', () => {
  it('always filters by the asking platform, whatever else the request carries', () => {
    expect(storedEventsFilter('Platform:a', { limit: 10 })).toEqual({ where: `metadata->>'platformId' = $1`, values: ['Platform:a'] });
    const { where, values } = storedEventsFilter('Platform:a', {
      limit: 10,
      resourceId: 'Customer:1',
      correlationId: 'c',
      type: 'CustomerCreated',
      customerId: 'Customer:1',
    });
    expect(where.startsWith(`metadata->>'platformId' = $1 AND `)).toBe(true);
    expect(values).toEqual(['Platform:a', 'Customer:1', 'c', 'CustomerCreated', 'Customer:1']);
  });

  it('compares times in the stored form (ISO 8601 UTC with milliseconds), whatever offset the client used', () => {
    expect(storedEventsFilter('Platform:a', { limit: 10, startDate: '2026-01-01T02:00:00+02:00' }).values).toEqual([
      'Platform:a',
      '2026-01-01T00:00:00.000Z',
    ]);
  });
});
