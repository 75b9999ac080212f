import { eventSubject } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';

// The platform's public facts. Token secrets never leave the service: a TokenCreated is announced
// without its hash.
export const toIntegrationEvent = (event: RecordedEvent): { subject: string; payload: unknown } | null => {
  const envelope = (aggregate: string, data: Record<string, unknown>) => ({
    subject: eventSubject('platform', aggregate, event.type),
    payload: { eventId: event.eventId, type: event.type, streamId: event.streamId, occurredAt: event.metadata.occurredAt, platformId: event.metadata.platformId, data },
  });
  switch (event.type) {
    case 'PlatformCreated':
    case 'PlatformConfigUpdated':
      return envelope('Platform', event.data);
    case 'TokenCreated': {
      const { secretHash: _secretHash, ...data } = event.data;
      return envelope('Token', data);
    }
    case 'TokenDeleted':
      return envelope('Token', event.data);
    default:
      return null;
  }
};
