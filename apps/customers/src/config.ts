import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type CustomersServiceConfig = ServiceConfig;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CustomersServiceConfig =>
  parseServiceConfig(env, { schema: 'customers', healthPort: 9092 });
