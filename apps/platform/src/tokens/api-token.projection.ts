import { EntitySchema } from '@mikro-orm/core';
import type { ApiTokenWire, Permission } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { TokenEvent } from './token';

/** One row per live token; the gateway's credential check and the token list read it. */
export type ApiTokenRow = {
  id: string;
  platformId: string;
  name: string;
  permissions: Permission[];
  clientId: string;
  secretHash: string;
  createdAt: Date;
  updatedAt: Date;
};

export const ApiTokenEntity = new EntitySchema<ApiTokenRow>({
  name: 'ApiTokenRow',
  tableName: 'api_tokens',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    name: { type: 'string' },
    permissions: { type: 'json' },
    clientId: { type: 'string' },
    secretHash: { type: 'string' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveApiToken = (row: ApiTokenRow | null, recorded: RecordedEvent): ApiTokenRow | null => {
  const event = recorded as unknown as TokenEvent;
  switch (event.type) {
    case 'TokenCreated': {
      const { tokenId, platformId, name, permissions, clientId, secretHash, createdAt } = event.data;
      return {
        id: tokenId,
        platformId,
        name,
        permissions,
        clientId,
        secretHash,
        createdAt: new Date(createdAt),
        updatedAt: new Date(createdAt),
      };
    }
    case 'TokenDeleted':
      // A deleted token leaves the read model at once: the credential check must stop matching it.
      return null;
    default:
      return row;
  }
};

export const apiTokenProjection: Projection<ApiTokenRow> = {
  name: 'api_tokens',
  version: 1,
  canHandle: ['TokenCreated', 'TokenDeleted'],
  entity: ApiTokenEntity,
  keyOf: (event) => String(event.data['tokenId']),
  evolve: evolveApiToken,
};

export const renderApiToken = (row: ApiTokenRow): ApiTokenWire => ({
  id: row.id,
  name: row.name,
  permissions: row.permissions,
  clientId: row.clientId,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
