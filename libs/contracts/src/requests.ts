import type { RequestContext } from './messages';

/** Every NATS request carries who asks (platform, actor) and the ids that trace it. */
export type ServiceRequest<Data> = { context: RequestContext; data: Data };

export type Permission = 'VIEW' | 'TRANSACT' | 'MANAGE';
export const permissions: readonly Permission[] = ['VIEW', 'TRANSACT', 'MANAGE'];

export type PlatformEnvironment = 'SANDBOX' | 'PRODUCTION';

/** What the gateway learns from a verified Basic credential. */
export type VerifiedCredential = {
  platformId: string;
  tokenId: string;
  permissions: Permission[];
  environment: PlatformEnvironment;
};
