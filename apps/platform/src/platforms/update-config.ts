import { type Command, DomainError, type UpdateConfigData, isSupportedCurrency } from '@corridor/contracts';
import { applyConfigChanges, type Platform, type PlatformEvent } from './platform';

export type UpdateConfig = Command<'UpdateConfig', { platformId: string; changes: UpdateConfigData }, { now: Date }>;

const checkCurrencies = (changes: UpdateConfigData): void => {
  const seen = new Set<string>();
  for (const [index, currency] of (changes.supportedCurrencies ?? []).entries()) {
    const field = `supportedCurrencies[${index}]`;
    if (!isSupportedCurrency(currency.currencyCode)) {
      throw new DomainError(
        'INVALID_CURRENCY',
        'validation',
        `${field}.currencyCode ${currency.currencyCode} is not a currency Corridor supports.`,
        {
          field: `${field}.currencyCode`,
        },
      );
    }
    if (seen.has(currency.currencyCode)) {
      throw new DomainError('INVALID_INPUT', 'validation', `${currency.currencyCode} is listed twice in supportedCurrencies.`, { field });
    }
    seen.add(currency.currencyCode);
    if (currency.minAmount > currency.maxAmount) {
      throw new DomainError('INVALID_INPUT', 'validation', `${field}.minAmount must not exceed maxAmount.`, {
        field: `${field}.minAmount`,
      });
    }
  }
};

export const updateConfig = (command: UpdateConfig, platform: Platform): PlatformEvent[] => {
  const { platformId, changes } = command.data;
  if (platform.status !== 'Active') {
    throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Platform ${platformId} does not exist.`);
  }
  checkCurrencies(changes);
  const next = applyConfigChanges(platform.settings, changes);
  // An update that changes nothing records nothing, so webhooks and audit stay quiet.
  if (JSON.stringify(next) === JSON.stringify(platform.settings)) return [];
  return [{ type: 'PlatformConfigUpdated', data: { platformId, changes, updatedAt: command.metadata.now.toISOString() } }];
};
