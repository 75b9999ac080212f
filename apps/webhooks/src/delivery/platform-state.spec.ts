import type { IntegrationEventEnvelope } from '../webhook-kind';
import { applyPlatformEvent, type PlatformState } from './event-intake';

// Two replicas of the webhooks service take a platform's events in parallel batches, so they can be
// applied out of order. The endpoint a platform set last must win whatever order they come in.

const platformId = 'Platform:0196f1a0-0000-7000-8000-000000000001';
const unknown: PlatformState = { endpoint: null, environment: null, known: false, endpointPosition: 0 };
const event = (type: string, streamPosition: number, data: Record<string, unknown>): IntegrationEventEnvelope => ({
  service: 'platform',
  aggregate: 'Platform',
  eventId: `e${streamPosition}`,
  type,
  streamId: platformId,
  streamPosition,
  occurredAt: '2026-11-25T10:00:00Z',
  platformId,
  data,
});
const created = event('PlatformCreated', 1, { environment: 'SANDBOX', settings: {} });
const endpointSet = event('PlatformConfigUpdated', 2, { changes: { webhookEndpoint: 'https://example.com/hooks' } });
const otherChange = event('PlatformConfigUpdated', 3, { changes: { umaDomain: 'example.com' } });

describe('applyPlatformEvent', () => {
  it('in order: the endpoint the configuration set, the environment of the creation', () => {
    const state = [created, endpointSet, otherChange].reduce(applyPlatformEvent, unknown);
    expect(state).toEqual({ endpoint: 'https://example.com/hooks', environment: 'SANDBOX', known: true, endpointPosition: 2 });
  });

  it('out of order: a creation applied after the configuration keeps the endpoint and still gives the environment', () => {
    const state = [endpointSet, otherChange, created].reduce(applyPlatformEvent, unknown);
    expect(state).toEqual({ endpoint: 'https://example.com/hooks', environment: 'SANDBOX', known: true, endpointPosition: 2 });
  });

  it('a cleared endpoint (null) stays cleared, and an older change applied after it does not bring it back', () => {
    const cleared = event('PlatformConfigUpdated', 4, { changes: { webhookEndpoint: null } });
    const state = [created, endpointSet, cleared].reduce(applyPlatformEvent, unknown);
    expect(state).toEqual({ endpoint: null, environment: 'SANDBOX', known: true, endpointPosition: 4 });
    expect([created, cleared, endpointSet].reduce(applyPlatformEvent, unknown).endpoint).toBeNull();
  });

  it('an older endpoint change applied after a newer one does not win', () => {
    const newer = event('PlatformConfigUpdated', 4, { changes: { webhookEndpoint: 'https://example.com/v2' } });
    expect([created, newer, endpointSet].reduce(applyPlatformEvent, unknown).endpoint).toBe('https://example.com/v2');
  });
});
