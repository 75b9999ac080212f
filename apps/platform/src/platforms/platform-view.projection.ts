import { EntitySchema } from '@mikro-orm/core';
import type { PlatformConfigWire, PlatformEnvironment } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { applyConfigChanges, type PlatformEvent, type PlatformSettings } from './platform';

export type PlatformRow = {
  id: string;
  configId: string;
  name: string;
  environment: PlatformEnvironment;
  settings: PlatformSettings;
  createdAt: Date;
  updatedAt: Date;
};

export const PlatformEntity = new EntitySchema<PlatformRow>({
  name: 'PlatformRow',
  tableName: 'platforms',
  properties: {
    id: { type: 'string', primary: true },
    configId: { type: 'string' },
    name: { type: 'string' },
    environment: { type: 'string' },
    settings: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolvePlatformView = (row: PlatformRow | null, recorded: RecordedEvent): PlatformRow | null => {
  const event = recorded as unknown as PlatformEvent;
  switch (event.type) {
    case 'PlatformCreated': {
      const { platformId, configId, name, environment, settings, createdAt } = event.data;
      return { id: platformId, configId, name, environment, settings, createdAt: new Date(createdAt), updatedAt: new Date(createdAt) };
    }
    case 'PlatformConfigUpdated':
      // An update for a platform the view has not seen cannot happen in one stream; skip it rather than throw.
      if (!row) return row;
      return { ...row, settings: applyConfigChanges(row.settings, event.data.changes), updatedAt: new Date(event.data.updatedAt) };
    default:
      return row;
  }
};

export const platformViewProjection: Projection<PlatformRow> = {
  name: 'platforms',
  version: 1,
  canHandle: ['PlatformCreated', 'PlatformConfigUpdated'],
  entity: PlatformEntity,
  keyOf: (event) => String(event.data['platformId']),
  evolve: evolvePlatformView,
};

export const renderConfig = (row: PlatformRow): PlatformConfigWire => ({
  id: row.configId,
  umaDomain: row.settings.umaDomain,
  proxyUmaSubdomain: row.settings.proxyUmaSubdomain,
  ...(row.settings.webhookEndpoint ? { webhookEndpoint: row.settings.webhookEndpoint } : {}),
  supportedCurrencies: row.settings.supportedCurrencies,
  isRegulatedFinancialInstitution: row.settings.isRegulatedFinancialInstitution,
  ...(row.settings.embeddedWalletConfig ? { embeddedWalletConfig: row.settings.embeddedWalletConfig } : {}),
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  platformId: row.id,
  environment: row.environment,
});
