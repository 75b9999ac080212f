import { randomUUID } from 'node:crypto';
import { ANY, NO_STREAM } from '@kurrent/kurrentdb-client';
import { eventStoreContract } from './event-store.contract';
import { createKurrentDbEventStore, toStreamState } from './kurrentdb-event-store';
import type { EventStore } from './types';

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
    // A per-run prefix, shaped like a service's (`<run><service>-`), keeps readAll to this run's streams on a shared server.
    const run = `t${randomUUID().slice(0, 8)}`;
    const store = createKurrentDbEventStore({ connectionString: url, upcasters, streamPrefix: `${run}items-` });
    const neighbours: EventStore[] = [];
    return {
      store,
      // Another service on the same server: the same run, another category.
      openNeighbour: async () => {
        const neighbour = createKurrentDbEventStore({ connectionString: url, upcasters, streamPrefix: `${run}others-` });
        neighbours.push(neighbour);
        return neighbour;
      },
      teardown: async () => {
        for (const neighbour of neighbours) await neighbour.close();
        await store.close();
      },
    };
  });
} else {
  console.warn(
    'KurrentDB event store contract NOT RUN: EVENTSTORE_URL is not set, so no KurrentDB server is available. ' +
      'Set EVENTSTORE_URL=kurrentdb://127.0.0.1:2113?tls=false to run it.',
  );
}
