import { EntitySchema } from '@mikro-orm/core';
import type { Event } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';

// Which agent created a quote: GET /agents/me/quotes/{id} shows an agent only its own quotes.
// One stream per quote an agent created (`AgentQuote:<quoteId>`), one event, one row.

export type AgentQuoteCreated = Event<'AgentQuoteCreated', { quoteId: string; agentId: string; platformId: string }>;
export type AgentQuote = { kind: 'None' } | { kind: 'Exists'; agentId: string };

export const agentQuoteStreamId = (quoteId: string): string => `AgentQuote:${quoteId}`;

export const agentQuoteDecider = {
  initialState: (): AgentQuote => ({ kind: 'None' }),
  evolve: (_state: AgentQuote, event: AgentQuoteCreated): AgentQuote => ({ kind: 'Exists', agentId: event.data.agentId }),
};

export const recordAgentQuote = (data: AgentQuoteCreated['data'], state: AgentQuote): AgentQuoteCreated[] =>
  state.kind === 'Exists' ? [] : [{ type: 'AgentQuoteCreated', data }];

export type AgentQuoteRow = { quoteId: string; agentId: string; platformId: string };

export const AgentQuoteEntity = new EntitySchema<AgentQuoteRow>({
  name: 'AgentQuoteRow',
  tableName: 'agent_quotes',
  properties: { quoteId: { type: 'string', primary: true }, agentId: { type: 'string' }, platformId: { type: 'string' } },
});

export const agentQuoteProjection: Projection<AgentQuoteRow> = {
  name: 'agent_quotes',
  version: 1,
  canHandle: ['AgentQuoteCreated'],
  entity: AgentQuoteEntity,
  keyOf: (event) => String(event.data['quoteId']),
  evolve: (_row, recorded: RecordedEvent) => {
    const { data } = recorded as unknown as AgentQuoteCreated;
    return { quoteId: data.quoteId, agentId: data.agentId, platformId: data.platformId };
  },
};
