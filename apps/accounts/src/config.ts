import { parseServiceConfig, type ServiceConfig } from '@corridor/messaging';
import { type EmbeddedWalletConfig, parseEmbeddedWalletConfig } from './embedded-wallets/wallet-config';

export type AccountsServiceConfig = ServiceConfig & { embeddedWallets: EmbeddedWalletConfig };

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AccountsServiceConfig => ({
  ...parseServiceConfig(env, { schema: 'accounts', healthPort: 9093 }),
  embeddedWallets: parseEmbeddedWalletConfig(env),
});
