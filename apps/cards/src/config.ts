import { isSupportedCurrency } from '@corridor/contracts';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type CardsServiceConfig = ServiceConfig & {
  /** Currencies a card may be funded in (CARD_ELIGIBLE_CURRENCIES, comma-separated). */
  eligibleCurrencies: string[];
  /** How often cards due for a provisioning check are looked at (CARD_PROVISIONING_SWEEP_SECONDS). */
  provisioningSweepSeconds: number;
};

export const parseEligibleCurrencies = (value: string | undefined): string[] => {
  const codes = (value ?? 'USD,USDB')
    .split(',')
    .map((code) => code.trim().toUpperCase())
    .filter((code) => code.length > 0);
  if (codes.length === 0) throw new Error('CARD_ELIGIBLE_CURRENCIES must name at least one currency, e.g. USD,USDB.');
  const unknown = codes.filter((code) => !isSupportedCurrency(code));
  if (unknown.length > 0) throw new Error(`CARD_ELIGIBLE_CURRENCIES names currencies Corridor does not know: ${unknown.join(', ')}.`);
  return [...new Set(codes)];
};

const seconds = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 3_600)
    throw new Error(`${name} must be a whole number of seconds from 1 to 3600, got "${value}".`);
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CardsServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'cards', healthPort: 9096 }),
  eligibleCurrencies: parseEligibleCurrencies(env['CARD_ELIGIBLE_CURRENCIES']),
  provisioningSweepSeconds: seconds('CARD_PROVISIONING_SWEEP_SECONDS', env['CARD_PROVISIONING_SWEEP_SECONDS'], 1),
});
