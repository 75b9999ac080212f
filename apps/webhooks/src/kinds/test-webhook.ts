import type { WebhookKind } from '../webhook-kind';

// One TEST webhook when a platform's webhookEndpoint is configured (at creation) or changed; the
// reference never retries TEST. POST /sandbox/webhooks/test sends its own, synchronously.
export const kind: WebhookKind = {
  name: 'test-webhook',
  types: ['TEST'],
  plan(event) {
    if (event.service !== 'platform' || event.aggregate !== 'Platform') return null;
    const source =
      event.type === 'PlatformCreated'
        ? event.data['settings']
        : event.type === 'PlatformConfigUpdated'
          ? event.data['changes']
          : undefined;
    const endpoint = (source as { webhookEndpoint?: unknown } | undefined)?.webhookEndpoint;
    if (typeof endpoint !== 'string' || endpoint === '') return null;
    return { type: 'TEST', resourceId: event.platformId, render: { inline: {} } };
  },
  retried: () => false,
};
