import { EntitySchema } from '@mikro-orm/core';
import type { VerificationErrorWire, VerificationStatus, VerificationWire } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type VerificationEvent, verificationEventTypes } from './verification';

/** One verification as GET /verifications/{id} and the list return it. */
export type VerificationRow = {
  id: string;
  customerId: string;
  platformId: string;
  verificationStatus: VerificationStatus;
  errors: VerificationErrorWire[];
  createdAt: Date;
  updatedAt: Date;
};

export const VerificationEntity = new EntitySchema<VerificationRow>({
  name: 'VerificationRow',
  tableName: 'verifications',
  properties: {
    id: { type: 'string', primary: true },
    customerId: { type: 'string' },
    platformId: { type: 'string' },
    verificationStatus: { type: 'string' },
    errors: { type: 'json' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

export const evolveVerificationView = (row: VerificationRow | null, recorded: RecordedEvent): VerificationRow | null => {
  const event = recorded as unknown as VerificationEvent;
  switch (event.type) {
    case 'VerificationSubmitted': {
      const { verificationId, customerId, platformId, verificationStatus, errors, submittedAt } = event.data;
      return {
        id: verificationId,
        customerId,
        platformId,
        verificationStatus,
        errors,
        createdAt: new Date(submittedAt),
        updatedAt: new Date(submittedAt),
      };
    }
    case 'VerificationDecided':
      // An outcome for a verification the view never saw cannot occur within one stream; skip it.
      if (!row) return row;
      return {
        ...row,
        verificationStatus: event.data.verificationStatus,
        errors: event.data.errors,
        updatedAt: new Date(event.data.decidedAt),
      };
    default:
      return row;
  }
};

export const verificationViewProjection: Projection<VerificationRow> = {
  name: 'verifications',
  version: 1,
  canHandle: verificationEventTypes,
  entity: VerificationEntity,
  keyOf: (event) => String(event.data['verificationId']),
  evolve: evolveVerificationView,
};

export const renderVerification = (row: VerificationRow): VerificationWire => ({
  id: row.id,
  customerId: row.customerId,
  verificationStatus: row.verificationStatus,
  errors: row.errors,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * The verification exactly as GET would have shown it right after the event at `streamPosition`
 * of its customer's stream (webhook payloads); null when that event is not this verification's or
 * the customer is not the platform's.
 */
export const renderVerificationAt = (
  events: readonly RecordedEvent[],
  streamPosition: number,
  verificationId: string,
  platformId: string,
): VerificationWire | null => {
  const target = events.find((event) => event.streamPosition === streamPosition);
  if (!target || target.data['verificationId'] !== verificationId) return null;
  const row = events
    .filter((event) => event.streamPosition <= streamPosition && event.data['verificationId'] === verificationId)
    .reduce<VerificationRow | null>((state, event) => evolveVerificationView(state, event), null);
  return row && row.platformId === platformId ? renderVerification(row) : null;
};
