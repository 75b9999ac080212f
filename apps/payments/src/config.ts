import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';
import { type FeeSchedules, parseFeeSchedules } from './pricing/fee-schedule';
import type { ExecutionOptions } from './execution/execution-options';
import type { IncomingOptions } from './incoming/incoming-options';
import { defaultRailDelays } from './transactions/payout-rail';

export type PaymentsServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS, COMMAND_STREAM_MEMORY (decisions 0049, 0058). */
  eventSourcing: EventSourcingSettings;
  /** How long a quote can be executed after it is created. */
  quoteTtlSeconds: number;
  /** How long a snapshot of exchange rates is reused before the provider is asked again. */
  rateCacheSeconds: number;
  /** How often PENDING quotes past their expiry are looked for and expired. */
  expirySweepSeconds: number;
  feeSchedules: FeeSchedules;
  /** How long a receiver lookup's lookupId can be cited by a quote. */
  receiverLookupTtlSeconds: number;
  /** Expiry of an invitation created without expiresAt. */
  invitationTtlSeconds: number;
  /** Invitation URLs are this base plus the code. */
  invitationUrlBase: string;
  /** Sandbox rail: how long a transfer to or from a 005 account stays pending before it fails. */
  transferPendingSeconds: number;
  /** How often transfers due on the rail are advanced. */
  transferSweepSeconds: number;
  /** Sandbox rail delays and the execution sweep (execution/execution-options.ts). */
  execution: ExecutionOptions;
  /** Approval window, webhook answer, settle retry and the timer sweep of incoming payments (incoming/incoming-options.ts). */
  incoming: IncomingOptions;
};

const seconds = (name: string, value: string | undefined, fallback: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 86_400)
    throw new Error(`${name} must be a whole number of seconds from 1 to 86400, got "${value}".`);
  return parsed;
};

/** Invitations live for days, not seconds: 30 days unless set, at most 366. */
const invitationTtl = (value: string | undefined): number => {
  if (value === undefined || value === '') return 30 * 86_400;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 60 || parsed > 366 * 86_400)
    throw new Error(`INVITATION_TTL_SECONDS must be a whole number of seconds from 60 to ${366 * 86_400}, got "${value}".`);
  return parsed;
};

const milliseconds = (name: string, value: string | undefined, fallback: number, min: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > 86_400_000)
    throw new Error(`${name} must be a whole number of milliseconds from ${min} to 86400000, got "${value}".`);
  return parsed;
};

const loadExecutionOptions = (env: NodeJS.ProcessEnv): ExecutionOptions => ({
  delays: {
    instantMs: milliseconds('SANDBOX_RAIL_DELAY_MS', env['SANDBOX_RAIL_DELAY_MS'], defaultRailDelays.instantMs, 0),
    longPaymentMs: milliseconds('SANDBOX_RAIL_LONG_PAYMENT_MS', env['SANDBOX_RAIL_LONG_PAYMENT_MS'], defaultRailDelays.longPaymentMs, 0),
    returnMs: milliseconds('SANDBOX_RAIL_RETURN_MS', env['SANDBOX_RAIL_RETURN_MS'], defaultRailDelays.returnMs, 0),
  },
  sweepMs: milliseconds('PAYMENT_EXECUTION_SWEEP_MS', env['PAYMENT_EXECUTION_SWEEP_MS'], 1_000, 50),
});

const whole = (name: string, value: string | undefined, fallback: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max)
    throw new Error(`${name} must be a whole number from 1 to ${max}, got "${value}".`);
  return parsed;
};

const loadIncomingOptions = (env: NodeJS.ProcessEnv): IncomingOptions => ({
  approvalWindowSeconds: whole('INCOMING_APPROVAL_WINDOW_SECONDS', env['INCOMING_APPROVAL_WINDOW_SECONDS'], 5, 86_400),
  webhookAnswerSeconds: whole('INCOMING_WEBHOOK_ANSWER_SECONDS', env['INCOMING_WEBHOOK_ANSWER_SECONDS'], 60, 86_400),
  settleRetrySeconds: whole('INCOMING_SETTLE_RETRY_SECONDS', env['INCOMING_SETTLE_RETRY_SECONDS'], 10, 86_400),
  sweepMs: whole('INCOMING_SWEEP_MS', env['INCOMING_SWEEP_MS'], 1_000, 60_000),
});

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): PaymentsServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'payments', healthPort: 9095 }),
  eventSourcing: eventSourcingSettingsFrom('payments', env),
  quoteTtlSeconds: seconds('QUOTE_TTL_SECONDS', env['QUOTE_TTL_SECONDS'], 300),
  rateCacheSeconds: seconds('EXCHANGE_RATE_CACHE_SECONDS', env['EXCHANGE_RATE_CACHE_SECONDS'], 300),
  expirySweepSeconds: seconds('QUOTE_EXPIRY_SWEEP_SECONDS', env['QUOTE_EXPIRY_SWEEP_SECONDS'], 5),
  feeSchedules: parseFeeSchedules(env['PAYMENTS_FEE_SCHEDULE']),
  receiverLookupTtlSeconds: seconds('RECEIVER_LOOKUP_TTL_SECONDS', env['RECEIVER_LOOKUP_TTL_SECONDS'], 600),
  invitationTtlSeconds: invitationTtl(env['INVITATION_TTL_SECONDS']),
  invitationUrlBase: (env['INVITATION_URL_BASE'] ?? 'https://uma.me/i/').trim() || 'https://uma.me/i/',
  transferPendingSeconds: seconds('TRANSFER_PENDING_SECONDS', env['TRANSFER_PENDING_SECONDS'], 30),
  transferSweepSeconds: seconds('TRANSFER_SWEEP_SECONDS', env['TRANSFER_SWEEP_SECONDS'], 1),
  execution: loadExecutionOptions(env),
  incoming: loadIncomingOptions(env),
});
