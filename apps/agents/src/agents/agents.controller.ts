import { createHash, randomBytes, randomInt } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AgentCreateResponseWire,
  type AgentDeviceCodeRedeemWire,
  type AgentDeviceCodeStatusWire,
  type AgentDeviceCodeWire,
  type AgentIdData,
  type AgentWire,
  CLOCK,
  type Clock,
  type CreateAgentData,
  type DeviceCodeData,
  DomainError,
  isIdOf,
  type ListAgentsData,
  grantorPermissionsOf,
  type RegenerateDeviceCodeData,
  idForRequest,
  idempotencyScopeOf,
  invalidInput,
  type Page,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type UpdateAgentData,
  type UpdateAgentPolicyData,
  type VerifiedAgent,
  type VerifyAgentTokenData,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { filters, pageOf } from '../list';
import { AgentParties } from '../parties';
import { agentTokenRefused } from '../policy/agent-access';
import { renderPolicy } from '../policy/policy';
import { ActingAgent } from './acting-agent';
import { renderUsage } from '../policy/usage';
import { UsageLedger } from '../usage/usage-ledger';
import { AGENT_OPTIONS, type AgentOptions } from './agent-options';
import {
  type Agent,
  agentDecider,
  agentNotFound,
  type AgentView,
  createAgent,
  deleteAgent,
  type DeviceCode,
  issueDeviceCode,
  redeemDeviceCode,
  renderAgent,
  renderDeviceCode,
  updateAgent,
  updateAgentPolicy,
} from './agent';
import { AgentEntity, DeviceCodeEntity } from './agent-view.projection';

/** Unambiguous letters and digits (no 0/O, 1/I/L): a code is typed by a person. 32^12 = 2^60 codes. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_GROUPS = 3;
const CODE_GROUP_LENGTH = 4;

export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

const newDeviceCode = (now: Date, ttlSeconds: number): DeviceCode => {
  const group = () => Array.from({ length: CODE_GROUP_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  return {
    code: ['AGENT', ...Array.from({ length: CODE_GROUPS }, group)].join('-'),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
    redeemed: false,
  };
};

const deviceCodeNotFound = (code: string) =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Device code ${String(code).slice(0, 40)} was not found.`, { field: 'code' });

/**
 * The platform's agent management (POST/GET/PATCH/DELETE /agents…, device codes) and the agent's
 * own profile (GET /agents/me), plus the token check the gateway asks on every Bearer request.
 * Every read and change is scoped to the asking platform: another platform's agent is a 404.
 */
@Controller()
export class AgentsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: AgentParties,
    private readonly usage: UsageLedger,
    private readonly acting: ActingAgent,
    @Inject(AGENT_OPTIONS) private readonly options: AgentOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.agents.agent.create)
  async create(@Payload() request: ServiceRequest<CreateAgentData>): Promise<AgentCreateResponseWire> {
    const { context, data } = request;
    // createAgent declares no 404 (decision 0016): a customerId naming no customer of this platform is a 400 on the field.
    const customer = await this.parties.customer(context, data.customerId, (message) => invalidInput(message, { field: 'customerId' }));
    // Derived from the Idempotency-Key: a retried create whose answer was lost finds the agent the first attempt made.
    const agentId = idForRequest('Agent', idempotencyScopeOf(context), 'create-agent', context.idempotencyKey);
    const now = this.clock.now();
    const deviceCode = newDeviceCode(now, this.options.deviceCodeTtlSeconds);
    const { platformId } = context;
    const grantorPermissions = grantorPermissionsOf(data);
    const { environment, name, policy } = data;
    const command = {
      type: 'CreateAgent' as const,
      data: {
        agentId,
        platformId,
        customerId: customer.id,
        environment,
        name,
        policy,
        deviceCode,
        grantorPermissions,
        ...(context.idempotencyKey !== undefined && context.requestFingerprint !== undefined
          ? { requestFingerprint: context.requestFingerprint }
          : {}),
      },
      metadata: { now },
    };
    const { state } = await this.eventSourcing.handle(agentId, agentDecider, (current) => createAgent(command, current), context, {
      assumeNew: true,
    });
    const agent = this.exists(state, agentId);
    return { agent: await this.render(agent), deviceCode: renderDeviceCode(agent) };
  }

  @MessagePattern(subjects.agents.agent.get)
  async get(@Payload() request: ServiceRequest<AgentIdData>): Promise<AgentWire> {
    return this.render(await this.read(request.context, request.data.agentId));
  }

  @MessagePattern(subjects.agents.agent.list)
  async list(@Payload() request: ServiceRequest<ListAgentsData>): Promise<Page<AgentWire>> {
    const { data } = request;
    const where = filters(request.context.platformId);
    where.clauses.push('NOT deleted');
    where.equal('customer_id', data.customerId);
    where.equal('is_paused', data.isPaused);
    where.equal('is_connected', data.isConnected);
    where.compare('created_at', '>=', data.createdAfter);
    where.compare('created_at', '<=', data.createdBefore);
    where.compare('updated_at', '>=', data.updatedAfter);
    where.compare('updated_at', '<=', data.updatedBefore);
    const now = this.clock.now();
    const page = await pageOf<{ id: string; agent: AgentView; created_at: Date }, AgentView>(
      this.eventSourcing,
      `${this.options.schema}.agents`,
      'agent',
      where,
      data,
      (row) => row.agent,
    );
    return { ...page, data: await Promise.all(page.data.map((agent) => this.render(agent, now))) };
  }

  @MessagePattern(subjects.agents.agent.update)
  async update(@Payload() request: ServiceRequest<UpdateAgentData>): Promise<AgentWire> {
    const { context, data } = request;
    await this.read(context, data.agentId);
    const command = {
      type: 'UpdateAgent' as const,
      data: {
        agentId: data.agentId,
        platformId: context.platformId,
        ...(data.name !== undefined ? { name: data.name } : {}),
        ...(data.isPaused !== undefined ? { isPaused: data.isPaused } : {}),
      },
      metadata: { now: this.clock.now() },
    };
    const { state } = await this.eventSourcing.handle(data.agentId, agentDecider, (current) => updateAgent(command, current), context);
    return this.render(this.exists(state, data.agentId));
  }

  @MessagePattern(subjects.agents.agent.updatePolicy)
  async updatePolicy(@Payload() request: ServiceRequest<UpdateAgentPolicyData>): Promise<AgentWire> {
    const { context, data } = request;
    await this.read(context, data.agentId);
    const grantorPermissions = grantorPermissionsOf(data);
    const update = { agentId: data.agentId, platformId: context.platformId, update: data.policy, grantorPermissions };
    const command = { type: 'UpdateAgentPolicy' as const, data: update, metadata: { now: this.clock.now() } };
    const { state } = await this.eventSourcing.handle(
      data.agentId,
      agentDecider,
      (current) => updateAgentPolicy(command, current),
      context,
    );
    return this.render(this.exists(state, data.agentId));
  }

  @MessagePattern(subjects.agents.agent.delete)
  async remove(@Payload() request: ServiceRequest<AgentIdData>): Promise<{ deleted: true }> {
    const { context, data } = request;
    await this.read(context, data.agentId);
    const command = {
      type: 'DeleteAgent' as const,
      data: { agentId: data.agentId, platformId: context.platformId },
      metadata: { now: this.clock.now() },
    };
    // handle() waits for the read model, where the token hash is cleared: the token is dead when this answers.
    await this.eventSourcing.handle(data.agentId, agentDecider, (current) => deleteAgent(command, current), context);
    return { deleted: true };
  }

  @MessagePattern(subjects.agents.agent.regenerateDeviceCode)
  async regenerateDeviceCode(@Payload() request: ServiceRequest<RegenerateDeviceCodeData>): Promise<AgentDeviceCodeWire> {
    const { context, data } = request;
    await this.read(context, data.agentId);
    const now = this.clock.now();
    const deviceCode = newDeviceCode(now, this.options.deviceCodeTtlSeconds);
    const issue = { agentId: data.agentId, platformId: context.platformId, deviceCode, grantorPermissions: grantorPermissionsOf(data) };
    const command = { type: 'IssueDeviceCode' as const, data: issue, metadata: { now } };
    const { state } = await this.eventSourcing.handle(data.agentId, agentDecider, (current) => issueDeviceCode(command, current), context);
    return renderDeviceCode(this.exists(state, data.agentId));
  }

  /** The platform polls whether its agent software has redeemed a code (Basic: a code of another platform is a 404). */
  @MessagePattern(subjects.agents.deviceCode.status)
  async deviceCodeStatus(@Payload() request: ServiceRequest<DeviceCodeData>): Promise<AgentDeviceCodeStatusWire> {
    const { context, data } = request;
    const row = await this.eventSourcing.em.findOne(DeviceCodeEntity, { code: String(data.code), platformId: context.platformId });
    if (!row) throw deviceCodeNotFound(data.code);
    const agent = await this.eventSourcing.em.findOne(
      AgentEntity,
      { id: row.agentId, platformId: context.platformId },
      { fields: ['agent'] },
    );
    if (!agent || agent.agent.deleted) throw deviceCodeNotFound(data.code);
    const current = agent.agent.deviceCode;
    return { code: row.code, redeemed: current.code === row.code && current.redeemed };
  }

  /**
   * Unauthenticated: the code is the credential. The access token is made here, returned once, and
   * only its SHA-256 is stored. Two redeems of one code race on the agent's stream: one connects,
   * the other finds the code redeemed (400).
   */
  @MessagePattern(subjects.agents.deviceCode.redeem)
  async redeem(@Payload() request: ServiceRequest<DeviceCodeData>): Promise<AgentDeviceCodeRedeemWire> {
    const { context, data } = request;
    const row = await this.eventSourcing.em.findOne(DeviceCodeEntity, { code: String(data.code) });
    if (!row) throw deviceCodeNotFound(data.code);
    const accessToken = `cat_${randomBytes(32).toString('hex')}`;
    const command = {
      type: 'RedeemDeviceCode' as const,
      data: { agentId: row.agentId, code: row.code, tokenHash: hashToken(accessToken) },
      metadata: { now: this.clock.now() },
    };
    const { state, events } = await this.eventSourcing.handle(row.agentId, agentDecider, (current) => redeemDeviceCode(command, current), {
      ...context,
      platformId: row.platformId,
    });
    if (events.length === 0 || state.kind !== 'Exists') throw new Error(`Redeeming ${row.code} recorded nothing.`);
    return { agentId: state.agent.id, agentName: state.agent.name, accessToken, policy: renderPolicy(state.agent.policy) };
  }

  /** The gateway's check of a Bearer token: the live agent whose token hash it is, else 401. */
  @MessagePattern(subjects.agents.token.verify)
  async verifyToken(@Payload() request: ServiceRequest<VerifyAgentTokenData>): Promise<VerifiedAgent> {
    const token = request.data.token;
    if (typeof token !== 'string' || token.length > 256) throw agentTokenRefused('The Bearer token is malformed.');
    const [row] = await this.eventSourcing.read<{ id: string; platform_id: string; customer_id: string }>(
      'agents-token-verify',
      `SELECT id, platform_id, customer_id FROM ${this.options.schema}.agents WHERE token_hash = $1 AND NOT deleted`,
      [hashToken(token)],
    );
    if (!row) throw agentTokenRefused('The Bearer token is not a valid agent token.');
    return { agentId: row.id, platformId: row.platform_id, customerId: row.customer_id };
  }

  @MessagePattern(subjects.agents.me.get)
  async me(@Payload() request: ServiceRequest<Record<string, never>>): Promise<AgentWire> {
    return this.render(await this.acting.authorize(request.context, 'getMe'));
  }

  private async read(context: RequestContext, agentId: string): Promise<AgentView> {
    if (!isIdOf('Agent', agentId)) throw agentNotFound(agentId);
    const row = await this.eventSourcing.em.findOne(AgentEntity, { id: agentId, platformId: context.platformId }, { fields: ['agent'] });
    if (!row || row.agent.deleted) throw agentNotFound(agentId);
    return row.agent;
  }

  private exists(state: Agent, agentId: string): AgentView {
    if (state.kind !== 'Exists') throw agentNotFound(agentId);
    return state.agent;
  }

  private async render(agent: AgentView, now = this.clock.now()): Promise<AgentWire> {
    // Counters are kept per UTC day and month of the service's clock: another day's are not read.
    return renderAgent(agent, renderUsage(await this.usage.read(agent.id, now), now));
  }
}
