import type { PlatformCurrencyConfigWire } from '@corridor/contracts';
import type { PlatformSettings } from './platform';

const currency = (currencyCode: string, minAmount: number, maxAmount: number): PlatformCurrencyConfigWire => ({
  currencyCode,
  minAmount,
  maxAmount,
  requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
  enabledTransactionTypes: ['OUTGOING', 'INCOMING'],
});

/** What a new platform starts with; every member can be changed with PATCH /config. */
export const defaultSettings = (slug: string, umaDomain?: string): PlatformSettings => ({
  umaDomain: umaDomain ?? `${slug}.sandbox.uma.money`,
  proxyUmaSubdomain: slug,
  supportedCurrencies: [
    currency('USD', 100, 1_000_000_00),
    currency('EUR', 100, 1_000_000_00),
    currency('GBP', 100, 1_000_000_00),
    currency('MXN', 1_000, 20_000_000_00),
  ],
  isRegulatedFinancialInstitution: false,
});
