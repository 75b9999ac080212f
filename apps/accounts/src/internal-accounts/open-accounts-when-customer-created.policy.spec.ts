// Pins down which accounts each integration event asks for: the customer's currencies at creation
// and on an update that lists currencies, the platform's supported currencies at creation and on a
// configuration update, and nothing for an update that does not touch currencies.
import {
  accountTypeFor,
  fromCustomerCreated,
  fromCustomerUpdated,
  fromPlatformConfigUpdated,
  fromPlatformCreated,
  internalAccountIdFor,
} from './open-accounts-when-customer-created.policy';

const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
const customerId = 'Customer:0196f1a0-0000-7000-8000-000000000002';
const envelope = (data: Record<string, unknown>) => ({ eventId: 'event-1', correlationId: 'corr-1', platformId, data });
const usdEur = [{ currencyCode: 'USD' }, { currencyCode: 'EUR' }];

describe('the events that open internal accounts', () => {
  it('opens the customer’s currencies when a customer is created', () =>
    expect(fromCustomerCreated(envelope({ customerId, profile: { currencies: ['USD', 'MXN'] } }), 'msg')).toEqual({
      platformId,
      customerId,
      currencies: ['USD', 'MXN'],
      eventId: 'event-1',
      correlationId: 'corr-1',
    }));

  it('opens the currencies a customer update lists, and nothing for an update of other fields', () => {
    expect(fromCustomerUpdated(envelope({ customerId, changes: { currencies: ['USD', 'GBP'] } }), 'msg')?.currencies).toEqual([
      'USD',
      'GBP',
    ]);
    expect(fromCustomerUpdated(envelope({ customerId, changes: { email: 'a@example.com' } }), 'msg')).toBeNull();
  });

  it('opens the platform’s own accounts, without a customer, at creation and when the configuration lists currencies', () => {
    expect(fromPlatformCreated(envelope({ platformId, settings: { supportedCurrencies: usdEur } }), 'msg')).toMatchObject({
      customerId: null,
      currencies: ['USD', 'EUR'],
    });
    expect(
      fromPlatformConfigUpdated(envelope({ platformId, changes: { supportedCurrencies: [...usdEur, { currencyCode: 'BTC' }] } }), 'msg'),
    ).toMatchObject({
      platformId,
      customerId: null,
      currencies: ['USD', 'EUR', 'BTC'],
    });
    expect(fromPlatformConfigUpdated(envelope({ platformId, changes: { webhookEndpoint: 'https://example.com/hook' } }), 'msg')).toBeNull();
  });

  it('names an owner’s account per currency the same way every time, so a repeat opens nothing new', () => {
    expect(internalAccountIdFor(platformId, 'USD')).toBe(internalAccountIdFor(platformId, 'USD'));
    expect(internalAccountIdFor(platformId, 'USD')).not.toBe(internalAccountIdFor(platformId, 'EUR'));
    expect(internalAccountIdFor(platformId, 'USD')).toMatch(/^InternalAccount:[0-9a-f-]{36}$/);
    expect([accountTypeFor('USD'), accountTypeFor('BTC'), accountTypeFor('USDC')]).toEqual([
      'INTERNAL_FIAT',
      'INTERNAL_CRYPTO',
      'INTERNAL_CRYPTO',
    ]);
  });
});

describe('the owning platform of an event', () => {
  it('comes from the event’s data when the envelope’s request context has no platform (platform creation)', () =>
    expect(
      fromPlatformCreated({ ...envelope({ platformId, settings: { supportedCurrencies: usdEur } }), platformId: '' }, 'msg')?.platformId,
    ).toBe(platformId));

  it('is required: an event naming no platform opens nothing', () =>
    expect(fromPlatformCreated({ eventId: 'e', platformId: '', data: { settings: { supportedCurrencies: usdEur } } }, 'msg')).toBeNull());
});
