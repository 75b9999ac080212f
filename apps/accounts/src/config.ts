import { eventSourcingSettingsFrom, type EventSourcingSettings } from '@corridor/event-store';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';
import { type EmbeddedWalletConfig, parseEmbeddedWalletConfig } from './embedded-wallets/wallet-config';
import { DEFAULT_OPERATION_WINDOW } from './internal-accounts/internal-account';

export type AccountsServiceConfig = ServiceConfig & {
  /** EVENT_STORE*, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY (libs/event-store). */
  eventSourcing: EventSourcingSettings;
  embeddedWallets: EmbeddedWalletConfig;
  /** LEDGER_OPERATION_WINDOW: operation ids (and closed holds) each account's state remembers (decision 0018). */
  operationWindow: number;
};

export const operationWindowFrom = (env: NodeJS.ProcessEnv): number => {
  const raw = env['LEDGER_OPERATION_WINDOW'];
  if (raw === undefined || raw === '') return DEFAULT_OPERATION_WINDOW;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`LEDGER_OPERATION_WINDOW must be a whole number of operations (at least 1), got "${raw}".`);
  return value;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AccountsServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'accounts', healthPort: 9093 }),
  eventSourcing: eventSourcingSettingsFrom('accounts', env),
  embeddedWallets: parseEmbeddedWalletConfig(env),
  operationWindow: operationWindowFrom(env),
});
