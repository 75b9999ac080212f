import type { Permission, PlatformEnvironment } from './requests';

// NATS message data of the platform service. Replies are the HTTP wire objects of the reference
// (ApiToken, PlatformConfig), rendered by the service so the gateway passes them through.

export type ApiTokenWire = {
  id: string;
  name: string;
  permissions: Permission[];
  clientId: string;
  clientSecret?: string;
  createdAt: string;
  updatedAt: string;
};

/** grantorPermissions: the permissions of the token asking (from its verified credential); a token grants only what it holds. */
export type CreateTokenData = { name: string; permissions: Permission[]; grantorPermissions: Permission[] };
export type TokenIdData = { tokenId: string };
export type ListTokensData = {
  name?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  limit: number;
  cursor?: string;
};

export type VerifyCredentialData = { clientId: string; clientSecret: string };

export type CustomerInfoFieldName = string;
export type PlatformCurrencyConfigWire = {
  currencyCode: string;
  minAmount: number;
  maxAmount: number;
  requiredCounterpartyFields: { name: CustomerInfoFieldName; mandatory: boolean }[];
  enabledTransactionTypes: ('INCOMING' | 'OUTGOING')[];
};
export type EmbeddedWalletConfigWire = {
  appName?: string;
  otpLength?: number;
  alphanumeric?: boolean;
  expirationSeconds?: number;
  sendFromEmailAddress?: string;
  sendFromEmailSenderName?: string;
  replyToEmailAddress?: string;
  logoUrl?: string;
  /** Corridor extension (decision 0021): the OAuth client ids an OIDC token's aud must be one of. */
  oidcAudiences?: string[];
};
export type PlatformConfigWire = {
  id: string;
  umaDomain: string;
  proxyUmaSubdomain: string;
  webhookEndpoint?: string;
  supportedCurrencies: PlatformCurrencyConfigWire[];
  isRegulatedFinancialInstitution: boolean;
  embeddedWalletConfig?: EmbeddedWalletConfigWire;
  createdAt: string;
  updatedAt: string;
  /** Extensions beyond the reference. */
  platformId: string;
  environment: PlatformEnvironment;
};
export type UpdateConfigData = {
  umaDomain?: string;
  /** null clears it: the platform then receives no webhooks, and its incoming payments are approved without asking. */
  webhookEndpoint?: string | null;
  supportedCurrencies?: PlatformCurrencyConfigWire[];
  embeddedWalletConfig?: EmbeddedWalletConfigWire;
};

/** Bootstrap (CLI only, not exposed over HTTP): a platform with a first MANAGE token. */
export type CreatePlatformData = { name: string; environment: PlatformEnvironment; umaDomain?: string };
export type CreatePlatformReply = { platformId: string; name: string; environment: PlatformEnvironment; token: ApiTokenWire };
