import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type ActionEvent, actionEventTypes, type ActionView, upcastAction } from './action';

/** One row per agent action: the action, its status, and whether its execution is due (the executor's timer). */
export type ActionRow = {
  id: string;
  platformId: string;
  agentId: string;
  customerId: string;
  status: string;
  executionDue: boolean;
  action: ActionView;
  createdAt: Date;
  updatedAt: Date;
};

export const ActionEntity = new EntitySchema<ActionRow>({
  name: 'ActionRow',
  tableName: 'agent_actions',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    agentId: { type: 'string' },
    customerId: { type: 'string' },
    status: { type: 'string' },
    executionDue: { type: 'boolean' },
    action: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveActionView = (_row: ActionRow | null, recorded: RecordedEvent): ActionRow | null => {
  const action = upcastAction((recorded as unknown as ActionEvent).data.action);
  return {
    id: action.id,
    platformId: action.platformId,
    agentId: action.agentId,
    customerId: action.customerId,
    status: action.status,
    executionDue: action.executionDue,
    action,
    createdAt: new Date(action.createdAt),
    updatedAt: new Date(action.updatedAt),
  };
};

export const actionViewProjection: Projection<ActionRow> = {
  name: 'agent_actions',
  // 2: amounts stored as decimal strings; the rebuild lifts the rows written with numbers.
  version: 2,
  canHandle: [...actionEventTypes],
  entity: ActionEntity,
  keyOf: (event) => String((event.data['action'] as ActionView).id),
  evolve: evolveActionView,
};
