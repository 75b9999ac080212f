import { DomainError } from '@corridor/contracts';
import { listDiscoveries } from './discoveries';

describe('listDiscoveries', () => {
  it('lists the institutions matching country and currency, and all of them with neither', () => {
    const philippines = listDiscoveries({ country: 'PH', currency: 'PHP' }).data;
    expect(philippines.length).toBeGreaterThan(1);
    expect(philippines.every((institution) => institution.country === 'PH' && institution.currency === 'PHP')).toBe(true);
    expect(listDiscoveries({ country: 'PH', currency: 'EUR' }).data).toEqual([]);
    const all = listDiscoveries({}).data;
    expect(all.length).toBeGreaterThan(philippines.length);
    expect(
      listDiscoveries({ currency: 'EUR' })
        .data.map((institution) => institution.country)
        .sort(),
    ).toEqual(['DE', 'ES', 'FR']);
  });

  it('refuses a currency it does not pay out in', () => {
    expect(() => listDiscoveries({ currency: 'XYZ' })).toThrow(DomainError);
  });
});
