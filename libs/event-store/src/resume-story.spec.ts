// A timer's tick continues the story of the stream it acts on (decision 0029).
import type { RequestContext } from '@corridor/contracts';
import { resumedContext } from './resume-story';

const tick: RequestContext = {
  platformId: 'Platform:1',
  actor: { kind: 'system', name: 'quote-expiry' },
  requestId: 'tick-request',
  correlationId: 'tick-request',
};
const last = {
  eventId: 'event-3',
  metadata: {
    platformId: 'Platform:1',
    correlationId: 'the-create-request',
    causationId: 'event-2',
    requestId: 'the-create-request',
    actor: { kind: 'system' as const, name: 'payments' },
    occurredAt: '2026-03-01T10:00:00.000Z',
    schemaVersion: 1,
  },
};

describe('resumedContext', () => {
  it("takes the correlation of the stream's last event and names that event as the cause", () =>
    expect(resumedContext(tick, last)).toEqual({ ...tick, correlationId: 'the-create-request', causationId: 'event-3' }));

  it('keeps the tick its own request id and actor', () =>
    expect(resumedContext(tick, last)).toMatchObject({ requestId: 'tick-request', actor: { kind: 'system', name: 'quote-expiry' } }));

  it('keeps the given context for a stream with no events', () => expect(resumedContext(tick, undefined)).toBe(tick));
});
