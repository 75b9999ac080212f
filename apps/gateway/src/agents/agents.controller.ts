import {
  Body,
  Controller,
  createParamDecorator,
  Delete,
  type ExecutionContext,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import {
  type AgentActionWire,
  type AgentCreateResponseWire,
  type AgentDeviceCodeRedeemWire,
  type AgentDeviceCodeStatusWire,
  type AgentDeviceCodeWire,
  type AgentPolicy,
  type AgentWire,
  type CreateAgentData,
  type ListAgentApprovalsData,
  type ListAgentsData,
  type Page,
  type Permission,
  type PlatformEnvironment,
  type RegenerateDeviceCodeData,
  type RejectAgentActionData,
  type RequestContext,
  subjects,
  type UpdateAgentPolicyData,
} from '@corridor/contracts';
import { PublicRoute, RequiresPermission } from '../auth/permissions';
import { type AuthenticatedRequest, Ctx, Grantor } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { correlationIdOf } from '../http/request-id';
import { IdPipe, OptionalBody } from '../http/validation';
import { ServiceCall } from '../service-call';
import { AGENT_ACTION_TIMEOUT_MS } from './agent-me.controller';
import {
  AgentActionRejectRequest,
  AgentCreateRequest,
  AgentPolicyUpdateRequest,
  AgentUpdateRequest,
  ListAgentsQuery,
  ListApprovalsQuery,
} from './agents.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const agentId = new IdPipe('Agent', 'REFERENCE_NOT_FOUND', 'Agent');
const actionId = new IdPipe('AgentAction', 'REFERENCE_NOT_FOUND', 'Agent action');

/** A device code is short and typed by a person; anything longer cannot be one (404 like an unknown code). */
const DEVICE_CODE_MAX = 64;

const Environment = createParamDecorator((_data: unknown, host: ExecutionContext): PlatformEnvironment => {
  const request = host.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.corridor) throw new Error('Environment used on a route without authentication.');
  return request.corridor.credential.environment;
});

/** The unauthenticated redeem acts for nobody yet: the agents service finds the platform from the code. */
const redeemContext = (request: FastifyRequest): RequestContext => ({
  platformId: '',
  actor: { kind: 'system', name: 'device-code-redeem' },
  requestId: request.id,
  correlationId: correlationIdOf(request.headers, request.id),
});

/** Agent management with platform (Basic) credentials, and the agent software's device-code redeem. */
@ApiTags('Agent Management')
@ApiBasicAuth()
@Controller('agents')
export class AgentsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createAgent')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(
    @Body() body: AgentCreateRequest,
    @Environment() environment: PlatformEnvironment,
    @Ctx() context: RequestContext,
    @Grantor() grantor: Permission[],
  ): Promise<AgentCreateResponseWire> {
    // An agent that moves money needs a TRANSACT token besides this route's MANAGE; the agents service judges it.
    const policy = body.policy as unknown as AgentPolicy;
    const data: CreateAgentData = { name: body.name, customerId: body.customerId, policy, environment, grantorPermissions: grantor };
    return this.call.request(subjects.agents.agent.create, data, context);
  }

  @ReferenceOperation('listAgents')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListAgentsQuery, @Ctx() context: RequestContext): Promise<Page<AgentWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.agents.agent.list, { ...defined(filters), ...pageOf(query) } satisfies ListAgentsData, context);
  }

  @ReferenceOperation('listAgentApprovals')
  @Get('approvals')
  @RequiresPermission('VIEW')
  approvals(@Query() query: ListApprovalsQuery, @Ctx() context: RequestContext): Promise<Page<AgentActionWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(
      subjects.agents.action.listApprovals,
      { ...defined(filters), ...pageOf(query) } satisfies ListAgentApprovalsData,
      context,
    );
  }

  @ReferenceOperation('getAgentDeviceCodeStatus')
  @Get('device-codes/:code/status')
  @RequiresPermission('VIEW')
  deviceCodeStatus(@Param('code') code: string, @Ctx() context: RequestContext): Promise<AgentDeviceCodeStatusWire> {
    return this.call.request(subjects.agents.deviceCode.status, { code: code.slice(0, DEVICE_CODE_MAX + 1) }, context);
  }

  @ReferenceOperation('redeemAgentDeviceCode')
  @Post('device-codes/:code/redeem')
  @HttpCode(200)
  @PublicRoute()
  redeem(@Param('code') code: string, @Req() request: FastifyRequest): Promise<AgentDeviceCodeRedeemWire> {
    return this.call.request(subjects.agents.deviceCode.redeem, { code: code.slice(0, DEVICE_CODE_MAX + 1) }, redeemContext(request));
  }

  @ReferenceOperation('getAgentById')
  @Get(':agentId')
  @RequiresPermission('VIEW')
  get(@Param('agentId', agentId) id: string, @Ctx() context: RequestContext): Promise<AgentWire> {
    return this.call.request(subjects.agents.agent.get, { agentId: id }, context);
  }

  @ReferenceOperation('updateAgent')
  @Patch(':agentId')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  update(@Param('agentId', agentId) id: string, @Body() body: AgentUpdateRequest, @Ctx() context: RequestContext): Promise<AgentWire> {
    return this.call.request(subjects.agents.agent.update, { agentId: id, ...defined({ ...body }) }, context);
  }

  @ReferenceOperation('deleteAgent')
  @Delete(':agentId')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async remove(@Param('agentId', agentId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(subjects.agents.agent.delete, { agentId: id }, context);
  }

  @ReferenceOperation('updateAgentPolicy')
  @Patch(':agentId/policy')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  updatePolicy(
    @Param('agentId', agentId) id: string,
    @Body() body: AgentPolicyUpdateRequest,
    @Ctx() context: RequestContext,
    @Grantor() grantor: Permission[],
  ): Promise<AgentWire> {
    const policy = defined({ ...body }) as UpdateAgentPolicyData['policy'];
    const data: UpdateAgentPolicyData = { agentId: id, policy, grantorPermissions: grantor };
    return this.call.request(subjects.agents.agent.updatePolicy, data, context);
  }

  @ReferenceOperation('regenerateAgentDeviceCode')
  @Post(':agentId/device-codes')
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  regenerateDeviceCode(
    @Param('agentId', agentId) id: string,
    @Ctx() context: RequestContext,
    @Grantor() grantor: Permission[],
  ): Promise<AgentDeviceCodeWire> {
    const data: RegenerateDeviceCodeData = { agentId: id, grantorPermissions: grantor };
    return this.call.request(subjects.agents.agent.regenerateDeviceCode, data, context);
  }

  @ReferenceOperation('approveAgentAction')
  @Post(':agentId/actions/:actionId/approve')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  approve(
    @Param('agentId', agentId) agent: string,
    @Param('actionId', actionId) action: string,
    @Ctx() context: RequestContext,
  ): Promise<AgentActionWire> {
    return this.call.request(subjects.agents.action.approve, { agentId: agent, actionId: action }, context, AGENT_ACTION_TIMEOUT_MS);
  }

  @ReferenceOperation('rejectAgentAction')
  @Post(':agentId/actions/:actionId/reject')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: AgentActionRejectRequest, required: false })
  reject(
    @Param('agentId', agentId) agent: string,
    @Param('actionId', actionId) action: string,
    @OptionalBody(AgentActionRejectRequest) body: AgentActionRejectRequest,
    @Ctx() context: RequestContext,
  ): Promise<AgentActionWire> {
    return this.call.request(
      subjects.agents.action.reject,
      { agentId: agent, actionId: action, ...defined({ ...body }) } satisfies RejectAgentActionData,
      context,
    );
  }
}
