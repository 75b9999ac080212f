import { randomUUID } from 'node:crypto';
import { ANY, KurrentDBClient, NO_STREAM, StreamNotFoundError } from '@kurrent/kurrentdb-client';
import { contractMetadata, eventStoreContract } from './event-store.contract';
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

describe('KurrentDB append result', () => {
  afterEach(() => jest.restoreAllMocks());

  it('gives the recorded events from the append result, without reading the stream back', async () => {
    // A client double: the only server this machine has. The contract suite below checks the same against a real one.
    const client = {
      appendToStream: jest.fn().mockResolvedValue({ success: true, nextExpectedRevision: 4n, position: { commit: 900n, prepare: 880n } }),
      readStream: jest.fn(() => {
        throw new Error('an append must not read the stream');
      }),
      dispose: jest.fn().mockResolvedValue(undefined),
    };
    jest.spyOn(KurrentDBClient, 'connectionString').mockReturnValue(client as unknown as KurrentDBClient);
    const store = createKurrentDbEventStore({ connectionString: 'kurrentdb://double:2113?tls=false', streamPrefix: 'accounts-' });
    const metadata = { ...contractMetadata(), occurredAt: '2026-01-02T03:04:05.678Z' };
    const appended = await store.appendToStream(
      'InternalAccount:x',
      [
        { type: 'A', data: { n: 1, gone: undefined } },
        { type: 'B', data: { n: 2 } },
      ],
      {
        expectedVersion: 3,
        metadata,
      },
    );
    expect(client.appendToStream).toHaveBeenCalledWith('accounts-InternalAccount:x', expect.any(Array), { streamState: 2n });
    expect(client.readStream).not.toHaveBeenCalled();
    expect(appended.version).toBe(5);
    expect(
      appended.events.map(({ streamId, streamPosition, globalPosition, type, data }) => ({
        streamId,
        streamPosition,
        globalPosition,
        type,
        data,
      })),
    ).toStrictEqual([
      { streamId: 'InternalAccount:x', streamPosition: 4, globalPosition: 900n, type: 'A', data: { n: 1 } },
      { streamId: 'InternalAccount:x', streamPosition: 5, globalPosition: 900n, type: 'B', data: { n: 2 } },
    ]);
    const sent = client.appendToStream.mock.calls[0][1] as { id: string; metadata: unknown }[];
    expect(appended.events.map((event) => [event.eventId, event.metadata])).toEqual(sent.map((event) => [event.id, event.metadata]));
    expect(appended.events[0]!.metadata).toEqual({ ...metadata, schemaVersion: 1 });
    await store.close();
  });
});

describe('KurrentDB stored-events listing', () => {
  afterEach(() => jest.restoreAllMocks());

  const stored = (streamId: string, revision: bigint, commit: bigint, occurredAt: string, platformId = 'Platform:a') => ({
    event: {
      streamId,
      id: `0190c0de-0000-7000-8000-${String(commit).padStart(12, '0')}`,
      revision,
      type: 'A',
      data: { n: Number(commit) },
      metadata: { ...contractMetadata({ platformId }), occurredAt, schemaVersion: 1 },
      position: { commit, prepare: commit },
    },
  });

  it("reads the service's category of $all (filtered by the server) and answers one page, newest first, without the prefix", async () => {
    // A client double, as above: what the adapter asks the server and how it shapes what comes back.
    const all = [
      stored('payments-Transaction:1', 0n, 10n, '2026-01-01T00:00:01.000Z'),
      { event: { ...stored('$stats', 0n, 11n, '2026-01-01T00:00:09.000Z').event, type: '$statsCollected' } },
      stored('payments-Transaction:2', 0n, 12n, '2026-01-01T00:00:03.000Z'),
      stored('payments-Transaction:1', 1n, 13n, '2026-01-01T00:00:02.000Z'),
      stored('payments-Transaction:3', 0n, 14n, '2026-01-01T00:00:05.000Z', 'Platform:b'),
    ];
    const readAll = jest.fn(async function* () {
      yield* all;
    });
    const client = { readAll, readStream: jest.fn(), dispose: jest.fn().mockResolvedValue(undefined) };
    jest.spyOn(KurrentDBClient, 'connectionString').mockReturnValue(client as unknown as KurrentDBClient);
    const store = createKurrentDbEventStore({ connectionString: 'kurrentdb://double:2113?tls=false', streamPrefix: 'payments-' });
    const { events, totalCount } = await store.listEvents({ platformId: 'Platform:a' }, { limit: 2 });
    expect(readAll).toHaveBeenCalledWith(expect.objectContaining({ filter: expect.objectContaining({ prefixes: ['payments-'] }) }));
    expect(totalCount).toBe(3);
    expect(events.map((event) => [event.streamId, event.streamPosition, event.globalPosition, event.metadata.occurredAt])).toEqual([
      ['Transaction:2', 1, 12n, '2026-01-01T00:00:03.000Z'],
      ['Transaction:1', 2, 13n, '2026-01-01T00:00:02.000Z'],
    ]);
    await store.close();
  });

  it('reads only the named stream for a resource, and an unknown one is an empty page', async () => {
    const readStream = jest.fn(async function* (name: string) {
      if (name !== 'payments-Transaction:1') throw new StreamNotFoundError({ metadata: new Map() } as never, name);
      yield stored('payments-Transaction:1', 0n, 10n, '2026-01-01T00:00:01.000Z');
    });
    const client = { readAll: jest.fn(), readStream, dispose: jest.fn().mockResolvedValue(undefined) };
    jest.spyOn(KurrentDBClient, 'connectionString').mockReturnValue(client as unknown as KurrentDBClient);
    const store = createKurrentDbEventStore({ connectionString: 'kurrentdb://double:2113?tls=false', streamPrefix: 'payments-' });
    const found = await store.listEvents({ platformId: 'Platform:a', resourceId: 'Transaction:1' }, { limit: 5 });
    expect(found.events.map((event) => event.streamId)).toEqual(['Transaction:1']);
    expect(await store.listEvents({ platformId: 'Platform:a', resourceId: 'Transaction:9' }, { limit: 5 })).toEqual({
      events: [],
      totalCount: 0,
    });
    expect(client.readAll).not.toHaveBeenCalled();
    await store.close();
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
