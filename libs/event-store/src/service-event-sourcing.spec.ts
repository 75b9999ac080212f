// Pins down the event sourcing settings a service's config.ts parses: the defaults, and each variable read.
import { eventSourcingSettingsFrom } from './service-event-sourcing';

describe('eventSourcingSettingsFrom', () => {
  it('defaults to PostgreSQL, a snapshot every 500 events and 5 outbox attempts', () =>
    expect(eventSourcingSettingsFrom('cards', {})).toEqual({ eventStore: { kind: 'postgres' }, snapshotEvery: 500, outboxMaxAttempts: 5 }));

  it('reads EVENT_STORE_<SERVICE>, SNAPSHOT_EVERY and OUTBOX_MAX_ATTEMPTS', () =>
    expect(
      eventSourcingSettingsFrom('cards', {
        EVENT_STORE_CARDS: 'kurrentdb',
        EVENTSTORE_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
        SNAPSHOT_EVERY: '0',
        OUTBOX_MAX_ATTEMPTS: '9',
      }),
    ).toEqual({
      eventStore: { kind: 'kurrentdb', url: 'kurrentdb://127.0.0.1:2113?tls=false', streamPrefix: 'cards-' },
      snapshotEvery: 0,
      outboxMaxAttempts: 9,
    }));

  it('refuses a malformed value, naming the variable', () => {
    expect(() => eventSourcingSettingsFrom('cards', { SNAPSHOT_EVERY: '-1' })).toThrow(/SNAPSHOT_EVERY must be a whole number/);
    expect(() => eventSourcingSettingsFrom('cards', { OUTBOX_MAX_ATTEMPTS: '0' })).toThrow(/OUTBOX_MAX_ATTEMPTS must be a whole number/);
  });
});
