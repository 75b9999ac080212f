import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type AccountsServiceConfig = ServiceConfig;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AccountsServiceConfig =>
  parseServiceConfig(env, { schema: 'accounts', healthPort: 9093 });
