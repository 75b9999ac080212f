import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type PlatformServiceConfig = ServiceConfig;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): PlatformServiceConfig =>
  parseServiceConfig(env, { schema: 'platform', healthPort: 9091 });
