// Agents (docs/decisions/0016-agents.md): the reference's Agent, AgentPolicy, AgentUsage,
// AgentAction and AgentDeviceCode* wire shapes, and the NATS message data between the gateway and
// the agents service. Amounts on the wire are integers of minor units (the reference's int64);
// they stay below 2^53, so a JSON number holds them exactly.

import type { QuoteWire, TransactionWire } from './payments';
import type { Permission, PlatformEnvironment } from './requests';
import type { WalletSignatureHeaders } from './embedded-wallets';

export const agentPermissions = [
  'VIEW_TRANSACTIONS',
  'CREATE_TRANSFERS',
  'CREATE_QUOTES',
  'EXECUTE_QUOTES',
  'MANAGE_EXTERNAL_ACCOUNTS',
] as const;
export type AgentPermission = (typeof agentPermissions)[number];

export const agentExecutionModes = ['AUTO', 'APPROVAL_REQUIRED'] as const;
export type AgentExecutionMode = (typeof agentExecutionModes)[number];

export type AgentSpendingLimits = {
  currency: string;
  perTransactionLimit: number;
  dailyLimit?: number | null;
  dailyTransactionLimit?: number;
  monthlyLimit?: number | null;
};

export type AgentAccountRule = { accountId: string; executionMode?: AgentExecutionMode; perTransactionLimit?: number | null };
export type AgentAccountRestrictions = { allowedAccountIds?: string[] | null; accountRules?: AgentAccountRule[] };
export type AgentApprovalThresholds = { currency?: string; amount?: number | null };

export type AgentPolicy = {
  permissions: AgentPermission[];
  defaultExecutionMode: AgentExecutionMode;
  spendingLimits: AgentSpendingLimits;
  accountRestrictions?: AgentAccountRestrictions;
  approvalThresholds?: AgentApprovalThresholds;
};

export type AgentUsageWire = {
  dailyTransactionCount: number;
  dailySpend: number;
  dailyResetDate: string;
  monthlySpend: number;
  monthlyResetMonth: string;
};

export type AgentWire = {
  id: string;
  name: string;
  customerId: string;
  isPaused: boolean;
  isConnected: boolean;
  policy: AgentPolicy;
  usage: AgentUsageWire;
  createdAt: string;
  updatedAt: string;
};

export type AgentDeviceCodeWire = { code: string; agentId: string; expiresAt: string; redeemed: boolean };
export type AgentCreateResponseWire = { agent: AgentWire; deviceCode: AgentDeviceCodeWire };
export type AgentDeviceCodeStatusWire = { code: string; redeemed: boolean };
export type AgentDeviceCodeRedeemWire = { agentId: string; agentName: string; accessToken: string; policy: AgentPolicy };

export const agentActionStatuses = ['PENDING_APPROVAL', 'APPROVED', 'REJECTED', 'FAILED'] as const;
export type AgentActionStatus = (typeof agentActionStatuses)[number];
export type AgentActionType = 'EXECUTE_QUOTE' | 'TRANSFER_OUT' | 'TRANSFER_IN';

export type AgentTransferDetails = { amount: number; currency: string; sourceAccountId: string; destinationAccountId: string };

export type AgentActionWire = {
  id: string;
  agentId: string;
  customerId: string;
  platformCustomerId: string;
  status: AgentActionStatus;
  type: AgentActionType;
  quote?: QuoteWire;
  transferDetails?: AgentTransferDetails;
  transaction?: TransactionWire;
  rejectionReason?: string;
  createdAt: string;
  updatedAt: string;
};

// ---------------------------------------------------------------------------------------------
// NATS message data (platform side: Basic credentials)

/**
 * environment: the platform's, from its verified credential (an agent's sandbox external accounts get the simulated activation).
 * grantorPermissions (here and below): the asking token's permissions; an agent gets no permission its grantor could not use
 * itself (libs/contracts grants.ts, decision 0022).
 */
export type CreateAgentData = {
  name: string;
  customerId: string;
  policy: AgentPolicy;
  environment: PlatformEnvironment;
  grantorPermissions: Permission[];
};
export type AgentIdData = { agentId: string };
export type RegenerateDeviceCodeData = AgentIdData & { grantorPermissions: Permission[] };
export type UpdateAgentData = { agentId: string; name?: string; isPaused?: boolean };
/** AgentPolicyUpdateRequest: omitted members keep their values; null removes a daily or monthly limit. */
export type AgentPolicyUpdate = {
  permissions?: AgentPermission[];
  defaultExecutionMode?: AgentExecutionMode;
  spendingLimits?: Partial<AgentSpendingLimits>;
  accountRestrictions?: AgentAccountRestrictions;
  approvalThresholds?: AgentApprovalThresholds;
};
export type UpdateAgentPolicyData = { agentId: string; policy: AgentPolicyUpdate; grantorPermissions: Permission[] };
export type ListAgentsData = {
  customerId?: string;
  isPaused?: boolean;
  isConnected?: boolean;
  createdAfter?: string;
  createdBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  limit: number;
  cursor?: string;
};
export type DeviceCodeData = { code: string };
export type AgentActionIdData = { agentId: string; actionId: string };
export type RejectAgentActionData = AgentActionIdData & { reason?: string };
export type ListAgentApprovalsData = {
  agentId?: string;
  customerId?: string;
  startDate?: string;
  endDate?: string;
  sortOrder?: 'asc' | 'desc';
  limit: number;
  cursor?: string;
};

// ---------------------------------------------------------------------------------------------
// Agent side (Bearer): the gateway verifies the token, then every /agents/me request carries the
// agent as the context's actor ({kind: 'agent', agentId}); the agents service loads the agent and
// applies its customer and policy to every call.

export type VerifyAgentTokenData = { token: string };
/** What the gateway learns from a verified agent token. */
export type VerifiedAgent = { agentId: string; platformId: string; customerId: string };

export type AgentActionsListData = { limit: number; cursor?: string; status?: AgentActionStatus; type?: AgentActionType };
export type AgentActionGetData = { actionId: string };
/** walletSignature: the Grid-Wallet-Signature header as received; a quote from an Embedded Wallet executes only with it. */
export type AgentExecuteQuoteData = { quoteId: string; walletSignature?: string };
/** A transfer-out of an Embedded Wallet takes the wallet's signed retry: its headers travel as received. */
export type AgentTransferData = WalletSignatureHeaders & {
  source: { accountId: string };
  destination: { accountId: string; paymentRail?: string };
  amount?: number;
};
/** A /agents/me call the agents service forwards, after its checks, to the owning service. */
export type AgentForwardData = { body?: Record<string, unknown>; query?: Record<string, unknown>; id?: string };

/**
 * The permissions each agent route accepts: any one of them lets the agent call it (null: any
 * connected agent of the customer). A quote is read by the agent that creates it and by one that
 * may only execute it, so getQuote takes either.
 */
export const agentRoutePermissions = {
  getMe: null,
  listTransactions: ['VIEW_TRANSACTIONS'],
  getTransaction: ['VIEW_TRANSACTIONS'],
  listInternalAccounts: ['VIEW_TRANSACTIONS'],
  createQuote: ['CREATE_QUOTES'],
  getQuote: ['CREATE_QUOTES', 'EXECUTE_QUOTES'],
  executeQuote: ['EXECUTE_QUOTES'],
  transferIn: ['CREATE_TRANSFERS'],
  transferOut: ['CREATE_TRANSFERS'],
  listActions: null,
  getAction: null,
  listExternalAccounts: ['MANAGE_EXTERNAL_ACCOUNTS'],
  createExternalAccount: ['MANAGE_EXTERNAL_ACCOUNTS'],
  getExternalAccount: ['MANAGE_EXTERNAL_ACCOUNTS'],
  deleteExternalAccount: ['MANAGE_EXTERNAL_ACCOUNTS'],
} as const satisfies Record<string, readonly AgentPermission[] | null>;
export type AgentRoute = keyof typeof agentRoutePermissions;
/** Routes a paused agent may still call: reads. Everything that starts or changes something is refused (403). */
export const agentReadRoutes: readonly AgentRoute[] = [
  'getMe',
  'listTransactions',
  'getTransaction',
  'listInternalAccounts',
  'getQuote',
  'listActions',
  'getAction',
  'listExternalAccounts',
  'getExternalAccount',
];
