import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AgentWire,
  eventStoreServices,
  eventsListSubject,
  type ListStoredEventsData,
  type Page,
  type RequestContext,
  type StoredEventWire,
  subjects,
} from '@corridor/contracts';
import { AgentAuthGuard } from '../agents/agent-auth.guard';
import { PublicRoute, RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { ExtensionOperation } from '../http/openapi/operation';
import { ServiceCall } from '../service-call';
import { ListStoredEventsQuery } from './events.dto';
import { mergePages } from './merge-pages';

const EXTENSION = 'Extension beyond the reference API (Corridor): ';

/** Asks every service for its page of the platform's events and merges them; a service that does not answer fails the request. */
const listEverywhere = async (call: ServiceCall, data: ListStoredEventsData, context: RequestContext): Promise<Page<StoredEventWire>> => {
  const pages = await Promise.all(
    eventStoreServices.map((service) => call.request<Page<StoredEventWire>>(eventsListSubject(service), data, context)),
  );
  return mergePages(pages, data.limit);
};

const requestOf = (query: ListStoredEventsQuery): ListStoredEventsData => {
  const { limit: _limit, cursor: _cursor, ...filters } = query;
  return { ...defined(filters), ...pageOf(query) };
};

@ApiTags('Corridor Extensions')
@ApiBasicAuth()
@Controller('events')
export class EventsController {
  constructor(private readonly call: ServiceCall) {}

  @ExtensionOperation('listEvents')
  @Get()
  @RequiresPermission('VIEW')
  @ApiOperation({ summary: `${EXTENSION}the stored events of the platform, by resource, correlation id, type and time, newest first` })
  list(@Query() query: ListStoredEventsQuery, @Ctx() context: RequestContext): Promise<Page<StoredEventWire>> {
    return listEverywhere(this.call, requestOf(query), context);
  }
}

/** The agent's view: only events of its customer (its stream, or events whose data names the customer). */
@ApiTags('Corridor Extensions')
@ApiBearerAuth()
@PublicRoute()
@UseGuards(AgentAuthGuard)
@Controller('agents/me/events')
export class AgentEventsController {
  constructor(private readonly call: ServiceCall) {}

  @ExtensionOperation('agentListEvents')
  @Get()
  @ApiOperation({ summary: `${EXTENSION}the stored events of the agent's customer, newest first` })
  async list(@Query() query: ListStoredEventsQuery, @Ctx() context: RequestContext): Promise<Page<StoredEventWire>> {
    const agent = await this.call.request<AgentWire>(subjects.agents.me.get, {}, context);
    return listEverywhere(this.call, { ...requestOf(query), customerId: agent.customerId }, context);
  }
}
