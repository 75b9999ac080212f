import { EntitySchema } from '@mikro-orm/core';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { ReceiverLookupEvent, ReceiverLookupRecord } from './receiver-lookup';

/** A lookup as quotes check it: the record, and the keys a quote filters on. */
export type LookupRow = { id: string; platformId: string; record: ReceiverLookupRecord; createdAt: Date; expiresAt: Date };

export const LookupEntity = new EntitySchema<LookupRow>({
  name: 'LookupRow',
  tableName: 'receiver_lookups',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    record: { type: 'json' },
    createdAt: { type: 'Date' },
    expiresAt: { type: 'Date' },
  },
});

export const evolveLookupView = (row: LookupRow | null, recorded: RecordedEvent): LookupRow | null => {
  const event = recorded as unknown as ReceiverLookupEvent;
  if (event.type !== 'ReceiverLookedUp') return row;
  const { lookup } = event.data;
  return {
    id: lookup.lookupId,
    platformId: lookup.platformId,
    record: lookup,
    createdAt: new Date(lookup.createdAt),
    expiresAt: new Date(lookup.expiresAt),
  };
};

export const lookupViewProjection: Projection<LookupRow> = {
  name: 'receiver-lookups',
  version: 1,
  canHandle: ['ReceiverLookedUp'],
  entity: LookupEntity,
  keyOf: (event) => String((event.data['lookup'] as ReceiverLookupRecord).lookupId),
  evolve: evolveLookupView,
};
