import { Inject, Injectable } from '@nestjs/common';
import { DomainError, subjects, type VerifiedAgent, type VerifiedCredential, type VerifyAgentTokenData } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';

type TraceIds = { requestId: string; correlationId: string };

/**
 * `Authorization: Bearer` on a platform route. The platform routes take Basic credentials only: an
 * agent token never stands in for a platform's API token, so the default refuses every Bearer
 * token there (decision 0016). Tests may pass another implementation to createGateway.
 */
export type AgentTokenVerifier = {
  verify(token: string, context: TraceIds): Promise<VerifiedCredential>;
};

export const AGENT_TOKEN_VERIFIER = 'AGENT_TOKEN_VERIFIER';

export const agentTokensRefusedOnPlatformRoutes: AgentTokenVerifier = {
  verify: async () => {
    throw new DomainError(
      'UNAUTHORIZED',
      'unauthorized',
      'A Bearer token is an agent token and works only on /agents/me routes. Platform routes take Authorization: Basic ' +
        'base64(clientId:clientSecret) of an API token.',
    );
  },
};

/**
 * The /agents/me side: asks the agents service whose token this is. Not cached, so a deleted
 * agent's token stops working on the very next request (its hash leaves the read model before
 * DELETE /agents/{id} answers); the cost is one NATS round trip per agent request.
 */
@Injectable()
export class AgentTokens {
  constructor(
    private readonly client: ServiceClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async verify(authorization: string | undefined, ids: TraceIds): Promise<VerifiedAgent> {
    const refuse = (why: string) =>
      new DomainError(
        'UNAUTHORIZED',
        'unauthorized',
        `${why} Send Authorization: Bearer <accessToken> from POST /agents/device-codes/{code}/redeem; platform credentials (Basic) do ` +
          `not work on /agents/me routes.`,
      );
    if (!authorization) throw refuse('No credentials were sent.');
    const [scheme, token, ...rest] = authorization.trim().split(/\s+/);
    if (scheme?.toLowerCase() !== 'bearer') throw refuse(`The ${String(scheme).slice(0, 20)} scheme does not work on agent routes.`);
    if (!token || rest.length > 0 || token.length > 256) throw refuse('The Authorization header is malformed.');
    return this.client.request<VerifiedAgent>(subjects.agents.token.verify, { token } satisfies VerifyAgentTokenData, {
      context: { platformId: '', actor: { kind: 'system', name: 'gateway' }, ...ids },
      timeoutMs: this.config.requestTimeoutMs,
    });
  }
}
