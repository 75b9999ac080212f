import { type IntegrationEvent, integrationEvent, type RecordedEvent } from '@corridor/event-store';

// The platform's public facts. Token secrets never leave the service: a TokenCreated is announced
// without its hash.
export const toIntegrationEvent = (event: RecordedEvent): IntegrationEvent | null => {
  switch (event.type) {
    case 'PlatformCreated':
    case 'PlatformConfigUpdated':
      return integrationEvent('platform', 'Platform', event);
    case 'TokenCreated': {
      const { secretHash: _secretHash, ...data } = event.data;
      return integrationEvent('platform', 'Token', event, data);
    }
    case 'TokenDeleted':
      return integrationEvent('platform', 'Token', event);
    default:
      return null;
  }
};
