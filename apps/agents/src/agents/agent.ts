import {
  type PlatformEnvironment,
  type AgentDeviceCodeWire,
  type AgentPolicy,
  type AgentPolicyUpdate,
  type AgentWire,
  type AgentUsageWire,
  type Command,
  DomainError,
  type Event,
  grantRefused,
  idempotencyConflict,
  invalidInput,
  type Permission,
  requireSameRequest,
  ungrantableAgentPermissions,
} from '@corridor/contracts';
import { applyPolicyUpdate, renderPolicy, type StoredPolicy, storedPolicyOf, validatePolicy } from '../policy/policy';

// The Agent aggregate: one stream per agent, stream id = the agent id (`Agent:<uuid>`). Every event
// carries the agent as it is after it (like cards, decision 0015), so the read model needs nothing
// else. The agent holds its current device code (a new one replaces the old, which is then no
// longer redeemable) and, once connected, the SHA-256 of its access token: the token itself is
// shown once, at redeem, and never stored. Deleting is final: the token stops working at once.

/**
 * issuerPermissions: the permissions of the token that had the code issued. Redeeming gives the
 * agent software the agent's policy, so a code redeems only into a policy its issuer could grant
 * (decision 0022). Codes from before that rule have none: they were issued with MANAGE.
 */
export type DeviceCode = { code: string; expiresAt: string; redeemed: boolean; issuerPermissions?: Permission[] };

const LEGACY_ISSUER: Permission[] = ['MANAGE'];

/** A token grants an agent only what it could do itself: money permissions need TRANSACT (403 otherwise). */
const requireGrantable = (grantor: readonly Permission[], policy: Pick<AgentPolicy, 'permissions'>, what: string): void => {
  const missing = ungrantableAgentPermissions(grantor, policy.permissions);
  if (missing.length > 0) throw grantRefused(missing, `${what} with ${policy.permissions.join(', ')}`);
};

export type AgentView = {
  id: string;
  platformId: string;
  customerId: string;
  /** The platform's environment when the agent was created (what its external accounts are created in). */
  environment: PlatformEnvironment;
  name: string;
  isPaused: boolean;
  isConnected: boolean;
  deleted: boolean;
  /** Amount limits as decimal strings of minor units (policy.ts); renderPolicy gives the wire's integers. */
  policy: StoredPolicy;
  deviceCode: DeviceCode;
  /** Hex SHA-256 of the access token; set at redeem. */
  tokenHash?: string;
  createdAt: string;
  updatedAt: string;
};

/** requestFingerprint: the create's, under an Idempotency-Key (decision 0028); a retry must match it. */
export type AgentCreated = Event<'AgentCreated', { agent: AgentView; requestFingerprint?: string }>;
export type AgentUpdated = Event<'AgentUpdated', { agent: AgentView }>;
export type AgentPolicyUpdated = Event<'AgentPolicyUpdated', { agent: AgentView }>;
export type AgentDeviceCodeIssued = Event<'AgentDeviceCodeIssued', { agent: AgentView; supersededCode: string }>;
export type AgentConnected = Event<'AgentConnected', { agent: AgentView }>;
export type AgentDeleted = Event<'AgentDeleted', { agent: AgentView }>;
export type AgentEvent = AgentCreated | AgentUpdated | AgentPolicyUpdated | AgentDeviceCodeIssued | AgentConnected | AgentDeleted;
export const agentEventTypes: readonly AgentEvent['type'][] = [
  'AgentCreated',
  'AgentUpdated',
  'AgentPolicyUpdated',
  'AgentDeviceCodeIssued',
  'AgentConnected',
  'AgentDeleted',
];

export type Agent = { kind: 'None' } | { kind: 'Exists'; agent: AgentView; requestFingerprint?: string };

/**
 * Events written before the policy's limits were stored as decimal strings carry them as JSON
 * numbers. Every read of an agent's stream (this decider, the read model) lifts such an agent.
 */
export const upcastAgent = (agent: AgentView): AgentView => ({ ...agent, policy: storedPolicyOf(agent.policy) });

export const agentDecider = {
  initialState: (): Agent => ({ kind: 'None' }),
  evolve: (_state: Agent, event: AgentEvent): Agent => {
    switch (event.type) {
      case 'AgentCreated': {
        const { agent, requestFingerprint } = event.data;
        return { kind: 'Exists', agent: upcastAgent(agent), ...(requestFingerprint !== undefined ? { requestFingerprint } : {}) };
      }
      case 'AgentUpdated':
      case 'AgentPolicyUpdated':
      case 'AgentDeviceCodeIssued':
      case 'AgentConnected':
      case 'AgentDeleted':
        return { ..._state, kind: 'Exists', agent: upcastAgent(event.data.agent) };
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  },
};

export const agentNotFound = (agentId: string): DomainError =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Agent ${String(agentId).slice(0, 80)} was not found.`, {
    agentId: String(agentId).slice(0, 80),
  });

/** A live agent of this platform; a deleted one is gone (404) like one that never was. */
const existing = (state: Agent, agentId: string, platformId: string): AgentView => {
  if (state.kind !== 'Exists' || state.agent.platformId !== platformId || state.agent.deleted) throw agentNotFound(agentId);
  return state.agent;
};

type At = { now: Date };

export type CreateAgent = Command<
  'CreateAgent',
  {
    agentId: string;
    platformId: string;
    customerId: string;
    environment: PlatformEnvironment;
    name: string;
    policy: AgentPolicy;
    deviceCode: DeviceCode;
    grantorPermissions: Permission[];
    requestFingerprint?: string;
  },
  At
>;
export const createAgent = (command: CreateAgent, state: Agent): AgentEvent[] => {
  const { data, metadata } = command;
  // Before the retry check: a retry answers with the agent's device code, which only a grantor of its policy may see.
  requireGrantable(data.grantorPermissions, state.kind === 'Exists' ? state.agent.policy : data.policy, 'create an agent');
  if (state.kind === 'Exists') {
    // A retry under the key (decision 0028): the same request, by the same platform, for the same customer.
    if (state.agent.platformId !== data.platformId || state.agent.deleted) throw idempotencyConflict(data.agentId);
    requireSameRequest(state.requestFingerprint, data.requestFingerprint, data.agentId);
    return [];
  }
  const name = data.name.trim();
  if (name.length === 0) throw invalidInput('name must not be blank.', { field: 'name' });
  const at = metadata.now.toISOString();
  const agent: AgentView = {
    id: data.agentId,
    platformId: data.platformId,
    customerId: data.customerId,
    environment: data.environment,
    name,
    isPaused: false,
    isConnected: false,
    deleted: false,
    policy: validatePolicy(data.policy),
    deviceCode: { ...data.deviceCode, issuerPermissions: data.grantorPermissions },
    createdAt: at,
    updatedAt: at,
  };
  return [
    {
      type: 'AgentCreated',
      data: { agent, ...(data.requestFingerprint !== undefined ? { requestFingerprint: data.requestFingerprint } : {}) },
    },
  ];
};

export type UpdateAgent = Command<'UpdateAgent', { agentId: string; platformId: string; name?: string; isPaused?: boolean }, At>;
export const updateAgent = (command: UpdateAgent, state: Agent): AgentEvent[] => {
  const { data, metadata } = command;
  const agent = existing(state, data.agentId, data.platformId);
  if (data.name === undefined && data.isPaused === undefined)
    throw invalidInput('Send at least one of name and isPaused.', { field: 'body' });
  const name = data.name?.trim() ?? agent.name;
  if (name.length === 0) throw invalidInput('name must not be blank.', { field: 'name' });
  const isPaused = data.isPaused ?? agent.isPaused;
  // The same values again (a retried PATCH) record nothing.
  if (name === agent.name && isPaused === agent.isPaused) return [];
  return [{ type: 'AgentUpdated', data: { agent: { ...agent, name, isPaused, updatedAt: metadata.now.toISOString() } } }];
};

/** Any change to a policy that lets the agent move money (its permissions or its limits) needs a grantor who may move money. */
export type UpdateAgentPolicy = Command<
  'UpdateAgentPolicy',
  { agentId: string; platformId: string; update: AgentPolicyUpdate; grantorPermissions: Permission[] },
  At
>;
export const updateAgentPolicy = (command: UpdateAgentPolicy, state: Agent): AgentEvent[] => {
  const { data, metadata } = command;
  const agent = existing(state, data.agentId, data.platformId);
  const policy = applyPolicyUpdate(agent.policy, data.update);
  if (JSON.stringify(policy) === JSON.stringify(agent.policy)) return [];
  requireGrantable(data.grantorPermissions, policy, "change an agent's policy");
  return [{ type: 'AgentPolicyUpdated', data: { agent: { ...agent, policy, updatedAt: metadata.now.toISOString() } } }];
};

export type DeleteAgent = Command<'DeleteAgent', { agentId: string; platformId: string }, At>;
export const deleteAgent = (command: DeleteAgent, state: Agent): AgentEvent[] => {
  const agent = existing(state, command.data.agentId, command.data.platformId);
  return [
    {
      type: 'AgentDeleted',
      data: { agent: { ...agent, deleted: true, isConnected: false, updatedAt: command.metadata.now.toISOString() } },
    },
  ];
};

/** A new device code replaces the current one, so an older unredeemed code can no longer be redeemed. */
/** A code redeems into the agent's policy, so only a token that could grant that policy has one issued. */
export type IssueDeviceCode = Command<
  'IssueDeviceCode',
  { agentId: string; platformId: string; deviceCode: DeviceCode; grantorPermissions: Permission[] },
  At
>;
export const issueDeviceCode = (command: IssueDeviceCode, state: Agent): AgentEvent[] => {
  const { data, metadata } = command;
  const agent = existing(state, data.agentId, data.platformId);
  if (agent.isConnected) {
    throw new DomainError(
      'CONFLICT',
      'conflict',
      `Agent ${agent.id} is already connected: its device code was redeemed. Delete the agent and create a new one to install it ` +
        `elsewhere.`,
      { agentId: agent.id },
    );
  }
  requireGrantable(data.grantorPermissions, agent.policy, 'issue a device code for an agent');
  const deviceCode: DeviceCode = { ...data.deviceCode, issuerPermissions: data.grantorPermissions };
  const reissued: AgentView = { ...agent, deviceCode, updatedAt: metadata.now.toISOString() };
  return [{ type: 'AgentDeviceCodeIssued', data: { agent: reissued, supersededCode: agent.deviceCode.code } }];
};

/**
 * Redeeming a code connects the agent with the token whose hash is given. Only the agent's current
 * code, unexpired and unredeemed, works; anything else is 400 (the reference's answer for an
 * expired or redeemed code); an unknown code never reaches here (404 at the lookup).
 */
export type RedeemDeviceCode = Command<'RedeemDeviceCode', { agentId: string; code: string; tokenHash: string }, At>;
export const redeemDeviceCode = (command: RedeemDeviceCode, state: Agent): AgentEvent[] => {
  const { data, metadata } = command;
  const invalid = (why: string) =>
    new DomainError('INVALID_INPUT', 'validation', `Device code ${data.code.slice(0, 40)} ${why}`, { field: 'code' });
  if (state.kind !== 'Exists' || state.agent.deleted) throw invalid('belongs to no agent any more.');
  const { agent } = state;
  if (agent.deviceCode.code !== data.code) throw invalid('was replaced by a newer code; redeem the newest one.');
  if (agent.deviceCode.redeemed) throw invalid('was already redeemed; a code works once.');
  if (metadata.now.getTime() >= Date.parse(agent.deviceCode.expiresAt))
    throw invalid(`expired at ${agent.deviceCode.expiresAt}; ask the platform for a new one.`);
  // The policy may have gained money permissions since the code was issued: the code's issuer could not grant those.
  const missing = ungrantableAgentPermissions(agent.deviceCode.issuerPermissions ?? LEGACY_ISSUER, agent.policy.permissions);
  if (missing.length > 0) {
    const needed = missing.join(' and ');
    throw new DomainError(
      'FORBIDDEN',
      'forbidden',
      `Device code ${data.code.slice(0, 40)} was issued by a token without ${needed}, which the agent's policy now needs. ` +
        `Ask the platform for a new code issued with a token that holds ${needed}.`,
      { requiredPermission: missing[0], requiredPermissions: missing },
    );
  }
  const connected: AgentView = {
    ...agent,
    isConnected: true,
    deviceCode: { ...agent.deviceCode, redeemed: true },
    tokenHash: data.tokenHash,
    updatedAt: metadata.now.toISOString(),
  };
  return [{ type: 'AgentConnected', data: { agent: connected } }];
};

export const renderDeviceCode = (agent: AgentView): AgentDeviceCodeWire => ({
  code: agent.deviceCode.code,
  agentId: agent.id,
  expiresAt: agent.deviceCode.expiresAt,
  redeemed: agent.deviceCode.redeemed,
});

export const renderAgent = (agent: AgentView, usage: AgentUsageWire): AgentWire => ({
  id: agent.id,
  name: agent.name,
  customerId: agent.customerId,
  isPaused: agent.isPaused,
  isConnected: agent.isConnected,
  policy: renderPolicy(agent.policy),
  usage,
  createdAt: agent.createdAt,
  updatedAt: agent.updatedAt,
});
