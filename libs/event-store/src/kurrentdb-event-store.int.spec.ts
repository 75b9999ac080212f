import { randomUUID } from 'node:crypto';
import { ANY, NO_STREAM } from '@kurrent/kurrentdb-client';
import { eventStoreContract } from './event-store.contract';
import { createKurrentDbEventStore, toStreamState } from './kurrentdb-event-store';

// Runs the event store contract against a KurrentDB server when EVENTSTORE_URL names one
// (e.g. kurrentdb://127.0.0.1:2113?tls=false); without one, the contract is not run and says so.

const url = process.env['EVENTSTORE_URL'];

describe('KurrentDB expected-version mapping', () => {
  it('maps our 1-based versions to KurrentDB stream states', () => {
    expect(toStreamState('any')).toBe(ANY);
    expect(toStreamState(0)).toBe(NO_STREAM);
    expect(toStreamState(1)).toBe(0n);
    expect(toStreamState(42)).toBe(41n);
  });
});

if (url) {
  eventStoreContract('KurrentDB event store', async ({ upcasters }) => {
    // A per-run stream prefix keeps readAll to this run's streams on a shared server.
    const store = createKurrentDbEventStore({ connectionString: url, upcasters, streamPrefix: `t${randomUUID().slice(0, 8)}-` });
    return { store, teardown: () => store.close() };
  });
} else {
  console.warn(
    'KurrentDB event store contract NOT RUN: EVENTSTORE_URL is not set, so no KurrentDB server is available. ' +
      'Set EVENTSTORE_URL=kurrentdb://127.0.0.1:2113?tls=false to run it.',
  );
}
