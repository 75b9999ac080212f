import { type AgentRoute, agentReadRoutes, agentRoutePermissions, DomainError } from '@corridor/contracts';
import type { AgentView } from '../agents/agent';
import { requirePermission } from './evaluate-policy';

// Whether an agent may call one of its routes at all, before any amount is looked at: a deleted
// agent's token is no credential (401, the reference's code for a bad Bearer token); a paused
// agent may still read (its profile shows isPaused) but starts and changes nothing (403); and the
// route's permission must be in the policy (403). Amounts are evaluate-policy.ts's.

export const agentTokenRefused = (why: string): DomainError =>
  new DomainError(
    'UNAUTHORIZED',
    'unauthorized',
    `${why} Send Authorization: Bearer <accessToken> from POST /agents/device-codes/{code}/redeem.`,
  );

export const authorizeAgentRoute = (agent: AgentView | undefined, route: AgentRoute): AgentView => {
  if (!agent || agent.deleted || !agent.isConnected)
    throw agentTokenRefused('This agent token is no longer valid (the agent was deleted).');
  if (agent.isPaused && !agentReadRoutes.includes(route)) {
    throw new DomainError(
      'FORBIDDEN',
      'forbidden',
      `Agent ${agent.id} is paused: it can read but not act until the platform resumes it (PATCH /agents/{agentId} with isPaused false).`,
      { agentId: agent.id, isPaused: true },
    );
  }
  requirePermission(agent.policy, agentRoutePermissions[route]);
  return agent;
};
