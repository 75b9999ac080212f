import type { CreateCustomerData, UpdateCustomerData } from '@corridor/contracts';
import type { CreateCustomer } from './create-customer';
import type { CustomerEvent } from './customer';
import type { PlatformSettings } from './platform-settings';
import type { UpdateCustomer } from './update-customer';

export const customerId = 'Customer:0196f1a0-0000-7000-8000-000000000001';
export const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
export const otherPlatformId = 'Platform:0196f1a0-0000-7000-8000-0000000000bb';
export const createdAt = '2026-03-01T10:00:00.000Z';
export const later = new Date('2026-03-01T11:00:00.000Z');

export const sandbox: PlatformSettings = {
  environment: 'SANDBOX',
  isRegulatedFinancialInstitution: false,
  supportedCurrencies: ['USD', 'EUR', 'MXN'],
  umaDomain: 'acme.sandbox.uma.money',
  embeddedWallets: false,
};
export const production: PlatformSettings = { ...sandbox, environment: 'PRODUCTION' };
export const regulated: PlatformSettings = { ...production, isRegulatedFinancialInstitution: true };

export const createCommand = (request: CreateCustomerData, settings: PlatformSettings = sandbox): CreateCustomer => ({
  type: 'CreateCustomer',
  data: { customerId, platformId, request, platformCustomerId: 'pc-1', umaAddress: '$alice@acme.sandbox.uma.money', settings },
  metadata: { now: new Date(createdAt) },
});

export const updateCommand = (
  patch: UpdateCustomerData['patch'],
  options: { platformId?: string; settings?: PlatformSettings } = {},
): UpdateCustomer => ({
  type: 'UpdateCustomer',
  data: { platformId: options.platformId ?? platformId, request: { customerId, patch }, settings: options.settings ?? sandbox },
  metadata: { now: later },
});

export const individualCreated = (): CustomerEvent => ({
  type: 'CustomerCreated',
  data: {
    customerId,
    platformId,
    customerType: 'INDIVIDUAL',
    profile: {
      platformCustomerId: 'pc-1',
      umaAddress: '$alice@acme.sandbox.uma.money',
      region: 'US',
      currencies: ['USD'],
      fullName: 'Alice Doe',
    },
    verificationStatus: 'APPROVED',
    createdAt,
  },
});

export const deleted = (): CustomerEvent => ({ type: 'CustomerDeleted', data: { customerId, platformId, deletedAt: createdAt } });
