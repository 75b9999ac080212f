import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type AgentsServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY (libs/event-store). */
  eventSourcing: EventSourcingSettings;
  /** How long a device code can be redeemed (AGENT_DEVICE_CODE_TTL_SECONDS, default 24 h). */
  deviceCodeTtlSeconds: number;
  /** How often approved actions whose execution did not finish are resumed (AGENT_EXECUTION_SWEEP_SECONDS). */
  executionSweepSeconds: number;
};

const seconds = (name: string, value: string | undefined, fallback: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > max)
    throw new Error(`${name} must be a whole number of seconds from 1 to ${max}, got "${value}".`);
  return parsed;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AgentsServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'agents', healthPort: 9097 }),
  eventSourcing: eventSourcingSettingsFrom('agents', env),
  deviceCodeTtlSeconds: seconds('AGENT_DEVICE_CODE_TTL_SECONDS', env['AGENT_DEVICE_CODE_TTL_SECONDS'], 86_400, 30 * 86_400),
  executionSweepSeconds: seconds('AGENT_EXECUTION_SWEEP_SECONDS', env['AGENT_EXECUTION_SWEEP_SECONDS'], 5, 3_600),
});
