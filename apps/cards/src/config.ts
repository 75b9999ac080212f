import { isSupportedCurrency } from '@corridor/contracts';
import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type CardsServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY (libs/event-store). */
  eventSourcing: EventSourcingSettings;
  /** Currencies a card may be funded in (CARD_ELIGIBLE_CURRENCIES, comma-separated). */
  eligibleCurrencies: string[];
  /** How often cards due for a provisioning check are looked at (CARD_PROVISIONING_SWEEP_SECONDS). */
  provisioningSweepSeconds: number;
  /** How often delayed pulls that fell due are confirmed (CARD_PULL_SWEEP_SECONDS, 1–3600, default 1). */
  pullSweepSeconds: number;
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
  eventSourcing: eventSourcingSettingsFrom('cards', env),
  eligibleCurrencies: parseEligibleCurrencies(env['CARD_ELIGIBLE_CURRENCIES']),
  provisioningSweepSeconds: seconds('CARD_PROVISIONING_SWEEP_SECONDS', env['CARD_PROVISIONING_SWEEP_SECONDS'], 1),
  pullSweepSeconds: seconds('CARD_PULL_SWEEP_SECONDS', env['CARD_PULL_SWEEP_SECONDS'], 1),
});
