import { parseAllowPrivateWebhookTargets } from '@corridor/contracts';
import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';

export type PlatformServiceConfig = ServiceConfig & {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: platforms (of every environment) may point webhookEndpoint at private addresses. */
  allowPrivateWebhookTargets: boolean;
};

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): PlatformServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'platform', healthPort: 9091 }),
  allowPrivateWebhookTargets: parseAllowPrivateWebhookTargets(env),
});
