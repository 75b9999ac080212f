import { eventSubject } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';

// Balance and status changes are what other services (and the webhooks) react to; every event of
// an internal account is one of them, so all are published.
const published = new Set(['InternalAccountOpened', 'AccountCredited', 'AccountDebited', 'FundsHeld', 'HoldSettled', 'HoldReleased', 'AccountStatusChanged']);

export const toIntegrationEvent = (event: RecordedEvent): { subject: string; payload: unknown } | null =>
  published.has(event.type)
    ? {
        subject: eventSubject('accounts', 'InternalAccount', event.type),
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
