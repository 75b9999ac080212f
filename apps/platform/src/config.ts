import { parseAllowPrivateWebhookTargets } from '@corridor/contracts';
import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type PlatformServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY (libs/event-store). */
  eventSourcing: EventSourcingSettings;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: platforms (of every environment) may point webhookEndpoint at private addresses. */
  allowPrivateWebhookTargets: boolean;
  /** PLATFORM_TOKENS_MAX: live API tokens one platform may have (decision 0022). */
  tokensMax: number;
  /** Secret verifications (scrypt, 16 MiB each) run at once, and waiting in all and per client id (decision 0022). */
  verifyConcurrency: number;
  verifyQueueMax: number;
  verifyQueuePerClientMax: number;
};

const wholeNumber = (name: string, value: string | undefined, fallback: number, range: { min: number; max: number }): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < range.min || parsed > range.max) {
    throw new Error(`${name} must be a whole number from ${range.min} to ${range.max}, got "${value}".`);
  }
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): PlatformServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'platform', healthPort: 9091 }),
  eventSourcing: eventSourcingSettingsFrom('platform', env),
  allowPrivateWebhookTargets: parseAllowPrivateWebhookTargets(env),
  tokensMax: wholeNumber('PLATFORM_TOKENS_MAX', env['PLATFORM_TOKENS_MAX'], 100, { min: 1, max: 100_000 }),
  // Two scrypts at once leave two of libuv's four threads to file, DNS and other crypto work.
  verifyConcurrency: wholeNumber('AUTH_VERIFY_CONCURRENCY', env['AUTH_VERIFY_CONCURRENCY'], 2, { min: 1, max: 64 }),
  verifyQueueMax: wholeNumber('AUTH_VERIFY_QUEUE_MAX', env['AUTH_VERIFY_QUEUE_MAX'], 64, { min: 0, max: 10_000 }),
  verifyQueuePerClientMax: wholeNumber('AUTH_VERIFY_QUEUE_PER_CLIENT', env['AUTH_VERIFY_QUEUE_PER_CLIENT'], 4, { min: 0, max: 10_000 }),
});
