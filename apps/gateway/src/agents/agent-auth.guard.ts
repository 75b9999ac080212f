import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { setContextPlatform } from '@corridor/telemetry';
import type { FastifyRequest } from 'fastify';
import { AgentTokens } from '../auth/agent-token-verifier';
import type { AuthenticatedRequest } from '../auth/request-context';
import { correlationIdOf } from '../http/request-id';
import { RateLimiter } from '../rate-limit/rate-limiter';

/**
 * The /agents/me routes: a Bearer agent token only (never Basic), verified by the agents service,
 * rate-limited per agent and, with the platform's tokens, per platform. The request then acts as the agent: every service call carries
 * actor {kind: 'agent', agentId} and the agent's platform, and the agents service applies the
 * agent's customer and policy. The routes are marked public for the platform AuthGuard, which
 * runs first and lets them through to this guard.
 */
@Injectable()
export class AgentAuthGuard implements CanActivate {
  constructor(
    private readonly tokens: AgentTokens,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(host: ExecutionContext): Promise<boolean> {
    const request = host.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const ids = { requestId: request.id, correlationId: correlationIdOf(request.headers, request.id) };
    const agent = await this.tokens.verify(request.headers.authorization, ids);
    // The rest of the request, its access-log line included, names its platform.
    setContextPlatform(agent.platformId);
    await this.rateLimiter.consume(agent.agentId, agent.platformId);
    request.corridor = {
      // No platform permissions: the agent's own are its policy's, checked by the agents service. No
      // agent route reads the environment (the agents service keeps the platform's with the agent).
      credential: { platformId: agent.platformId, tokenId: agent.agentId, permissions: [], environment: 'SANDBOX' },
      context: { platformId: agent.platformId, actor: { kind: 'agent', agentId: agent.agentId }, ...ids },
    };
    return true;
  }
}
