import { Injectable } from '@nestjs/common';
import { type AgentRoute, type RequestContext } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { agentTokenRefused, authorizeAgentRoute } from '../policy/agent-access';
import type { AgentView } from './agent';
import { AgentEntity } from './agent-view.projection';

/**
 * The agent a Bearer request acts as: the context's actor (set by the gateway from a verified
 * token), read fresh on every request so a pause, a policy change or a delete applies to the next
 * one; then whether it may call the route (agent-access.ts).
 */
@Injectable()
export class ActingAgent {
  constructor(private readonly eventSourcing: EventSourcing) {}

  async authorize(context: RequestContext, route: AgentRoute): Promise<AgentView> {
    if (context.actor.kind !== 'agent') throw agentTokenRefused('This route takes an agent token.');
    const row = await this.eventSourcing.em.findOne(
      AgentEntity,
      { id: context.actor.agentId, platformId: context.platformId },
      { fields: ['agent'] },
    );
    return authorizeAgentRoute(row?.agent, route);
  }
}
