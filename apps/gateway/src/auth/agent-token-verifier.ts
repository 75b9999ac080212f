import { DomainError, type VerifiedCredential } from '@corridor/contracts';

/** Verifies `Authorization: Bearer` agent tokens; the agents service will provide the real one. */
export type AgentTokenVerifier = {
  verify(token: string, context: { requestId: string; correlationId: string }): Promise<VerifiedCredential>;
};

export const AGENT_TOKEN_VERIFIER = 'AGENT_TOKEN_VERIFIER';

export const agentTokensDisabled: AgentTokenVerifier = {
  verify: async () => {
    throw new DomainError('UNAUTHORIZED', 'unauthorized', 'Agent tokens are not enabled yet. Use Basic auth with an API token clientId and clientSecret.');
  },
};
