// Pins down the event sourcing settings a service's config.ts parses: the defaults, and each variable read.
import { eventSourcingSettingsFrom } from './service-event-sourcing';

describe('eventSourcingSettingsFrom', () => {
  it('defaults to PostgreSQL, a snapshot every 500 events, 5 outbox attempts and 2,048 streams remembered', () =>
    expect(eventSourcingSettingsFrom('cards', {})).toEqual({
      eventStore: { kind: 'postgres' },
      snapshotEvery: 500,
      outboxMaxAttempts: 5,
      commandStreamMemory: 2048,
    }));

  it('reads EVENT_STORE_<SERVICE>, SNAPSHOT_EVERY, OUTBOX_MAX_ATTEMPTS and COMMAND_STREAM_MEMORY', () =>
    expect(
      eventSourcingSettingsFrom('cards', {
        EVENT_STORE_CARDS: 'kurrentdb',
        EVENTSTORE_URL: 'kurrentdb://127.0.0.1:2113?tls=false',
        SNAPSHOT_EVERY: '0',
        OUTBOX_MAX_ATTEMPTS: '9',
        COMMAND_STREAM_MEMORY: '0',
      }),
    ).toEqual({
      eventStore: { kind: 'kurrentdb', url: 'kurrentdb://127.0.0.1:2113?tls=false', streamPrefix: 'cards-' },
      snapshotEvery: 0,
      outboxMaxAttempts: 9,
      commandStreamMemory: 0,
    }));

  it('refuses a malformed value, naming the variable', () => {
    expect(() => eventSourcingSettingsFrom('cards', { SNAPSHOT_EVERY: '-1' })).toThrow(/SNAPSHOT_EVERY must be a whole number/);
    expect(() => eventSourcingSettingsFrom('cards', { OUTBOX_MAX_ATTEMPTS: '0' })).toThrow(/OUTBOX_MAX_ATTEMPTS must be a whole number/);
    expect(() => eventSourcingSettingsFrom('cards', { COMMAND_STREAM_MEMORY: '2k' })).toThrow(
      /COMMAND_STREAM_MEMORY must be a whole number/,
    );
  });
});
