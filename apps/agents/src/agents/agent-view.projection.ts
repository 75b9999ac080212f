import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type AgentEvent, agentEventTypes, type AgentView, upcastAgent } from './agent';

/** One row per agent: the agent as stored, and the columns lists filter on and tokens are found by. */
export type AgentRow = {
  id: string;
  platformId: string;
  customerId: string;
  isPaused: boolean;
  isConnected: boolean;
  deleted: boolean;
  tokenHash: string | null;
  agent: AgentView;
  createdAt: Date;
  updatedAt: Date;
};

export const AgentEntity = new EntitySchema<AgentRow>({
  name: 'AgentRow',
  tableName: 'agents',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    customerId: { type: 'string' },
    isPaused: { type: 'boolean' },
    isConnected: { type: 'boolean' },
    deleted: { type: 'boolean' },
    tokenHash: { type: 'string', nullable: true },
    agent: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveAgentView = (_row: AgentRow | null, recorded: RecordedEvent): AgentRow | null => {
  const agent = upcastAgent((recorded as unknown as AgentEvent).data.agent);
  return {
    id: agent.id,
    platformId: agent.platformId,
    customerId: agent.customerId,
    isPaused: agent.isPaused,
    isConnected: agent.isConnected,
    deleted: agent.deleted,
    // A deleted agent's token is dead at once: its hash leaves the row, so no lookup finds it.
    tokenHash: agent.deleted ? null : (agent.tokenHash ?? null),
    agent,
    createdAt: new Date(agent.createdAt),
    updatedAt: new Date(agent.updatedAt),
  };
};

export const agentViewProjection: Projection<AgentRow> = {
  name: 'agents',
  // 2: policy limits stored as decimal strings; the rebuild lifts the rows written with numbers.
  version: 2,
  canHandle: [...agentEventTypes],
  entity: AgentEntity,
  keyOf: (event) => String((event.data['agent'] as AgentView).id),
  evolve: evolveAgentView,
};

/** Every device code issued, pointing at its agent. */
export type DeviceCodeRow = { code: string; agentId: string; platformId: string };

export const DeviceCodeEntity = new EntitySchema<DeviceCodeRow>({
  name: 'DeviceCodeRow',
  tableName: 'agent_device_codes',
  properties: { code: { type: 'string', primary: true }, agentId: { type: 'string' }, platformId: { type: 'string' } },
});

export const deviceCodeProjection: Projection<DeviceCodeRow> = {
  name: 'agent_device_codes',
  version: 1,
  canHandle: ['AgentCreated', 'AgentDeviceCodeIssued'],
  entity: DeviceCodeEntity,
  keyOf: (event) => String((event.data['agent'] as AgentView).deviceCode.code),
  evolve: (_row, recorded) => {
    const { agent } = (recorded as unknown as AgentEvent).data;
    return { code: agent.deviceCode.code, agentId: agent.id, platformId: agent.platformId };
  },
};
