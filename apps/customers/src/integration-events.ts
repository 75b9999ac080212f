import { eventSubject } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';

const published = new Set(['CustomerCreated', 'CustomerUpdated', 'CustomerVerificationStatusChanged', 'CustomerDeleted']);

/** Customer facts other services react to; uniqueness claims stay private to this service. */
export const toIntegrationEvent = (event: RecordedEvent): { subject: string; payload: unknown } | null =>
  published.has(event.type)
    ? {
        subject: eventSubject('customers', 'Customer', event.type),
        payload: {
          eventId: event.eventId,
          type: event.type,
          streamId: event.streamId,
          streamPosition: event.streamPosition,
          occurredAt: event.metadata.occurredAt,
          platformId: event.metadata.platformId,
          correlationId: event.metadata.correlationId,
          data: event.data,
        },
      }
    : null;
