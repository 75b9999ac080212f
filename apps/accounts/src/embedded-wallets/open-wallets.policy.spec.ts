import { customerFacts, platformFacts, walletAccountIdFor } from './open-wallets.policy';
import { internalAccountIdFor } from '../internal-accounts/open-accounts-when-customer-created.policy';

describe('which platforms enable Embedded Wallets', () => {
  it('given a PlatformCreated with embeddedWalletConfig, then the platform is enabled with its environment and config', () => {
    const event = {
      data: { platformId: 'Platform:1', environment: 'SANDBOX', settings: { embeddedWalletConfig: { appName: 'Acme', otpLength: 8 } } },
    };
    expect(platformFacts(event)).toEqual({
      platformId: 'Platform:1',
      environment: 'SANDBOX',
      enabled: true,
      config: { appName: 'Acme', otpLength: 8 },
    });
  });

  it('given a PlatformCreated without it, then the platform is known but not enabled', () => {
    expect(platformFacts({ data: { platformId: 'Platform:1', environment: 'PRODUCTION', settings: {} } })).toMatchObject({
      enabled: false,
      environment: 'PRODUCTION',
    });
  });

  it('given a PlatformConfigUpdated that configures it, then the platform is enabled (environment unknown here)', () => {
    expect(platformFacts({ platformId: 'Platform:1', data: { platformId: 'Platform:1', changes: { embeddedWalletConfig: {} } } })).toEqual({
      platformId: 'Platform:1',
      environment: '',
      enabled: true,
      config: {},
    });
  });

  it('given an event without a platform id, then nothing', () => expect(platformFacts({ data: {} })).toBeNull());
});

describe('which customers get a wallet', () => {
  it('given a CustomerCreated, then its email', () => {
    expect(customerFacts({ data: { customerId: 'Customer:1', platformId: 'Platform:1', profile: { email: 'a@example.com' } } })).toEqual({
      customerId: 'Customer:1',
      platformId: 'Platform:1',
      email: 'a@example.com',
    });
  });

  it('given a CustomerUpdated without an email change, then no email (the known one stays)', () => {
    expect(customerFacts({ data: { customerId: 'Customer:1', platformId: 'Platform:1', changes: { fullName: 'B' } } })).toMatchObject({
      email: null,
    });
  });

  it('given an event without ids, then nothing', () => expect(customerFacts({ data: { customerId: 'Customer:1' } })).toBeNull());

  it('gives one wallet id per customer, apart from the customer’s currency accounts', () => {
    expect(walletAccountIdFor('Customer:1')).toBe(walletAccountIdFor('Customer:1'));
    expect(walletAccountIdFor('Customer:1')).not.toBe(internalAccountIdFor('Customer:1', 'USDB'));
    expect(walletAccountIdFor('Customer:1')).toMatch(/^InternalAccount:[0-9a-f-]{36}$/);
  });
});
