import { randomUUID } from 'node:crypto';
import {
  type AppendMetadata,
  type EventStore,
  type RecordedEvent,
  type StoredEventsFilter,
  type StoredEventsKey,
  type Upcasters,
  WrongExpectedVersionError,
} from './types';

// The behaviour every EventStore adapter must share; each adapter's spec runs this suite against
// a real server. Streams get random ids so tests in one store never see each other's streams.

export type ContractFixture = {
  store: EventStore;
  /**
   * Begins a transaction that writes one event to `streamId` and stays open until commit() —
   * how a slow writer looks to readers. Adapters without transactions visible to readers omit it.
   */
  openSlowAppend?: (streamId: string) => Promise<{ commit(): Promise<void> }>;
  /**
   * Another service's store on the same server (PostgreSQL: another schema; KurrentDB: another
   * stream prefix). The fixture's teardown closes it.
   */
  openNeighbour: () => Promise<EventStore>;
  teardown(): Promise<void>;
};

export const contractUpcasters: Upcasters = {
  ItemRenamed: {
    1: (data) => ({ itemId: data['itemId'], name: data['title'] }),
    2: (data) => ({ ...data, locale: 'en' }),
  },
};

export const contractMetadata = (overrides: Partial<AppendMetadata> = {}): AppendMetadata => ({
  platformId: 'Platform:0190c0de-0000-7000-8000-000000000001',
  correlationId: randomUUID(),
  causationId: randomUUID(),
  requestId: randomUUID(),
  actor: { kind: 'token', tokenId: 'ApiToken:0190c0de-0000-7000-8000-000000000002' },
  ...overrides,
});

const newStreamId = (): string => `Item:${randomUUID()}`;

const readAllAfter = async (store: EventStore, after: bigint): Promise<RecordedEvent[]> => {
  const seen: RecordedEvent[] = [];
  for (let cursor = after, round = 0; round < 1_000; round += 1) {
    const batch = await store.readAll({ after: cursor, limit: 50 });
    const last = batch[batch.length - 1];
    if (!last) return seen;
    seen.push(...batch);
    cursor = last.globalPosition;
  }
  throw new Error('readAll did not reach the end within 1000 batches.');
};

export const eventStoreContract = (name: string, factory: (options: { upcasters: Upcasters }) => Promise<ContractFixture>): void => {
  describe(`${name} (event store contract)`, () => {
    let fixture: ContractFixture;
    let store: EventStore;

    beforeAll(async () => {
      fixture = await factory({ upcasters: contractUpcasters });
      store = fixture.store;
    });

    afterAll(async () => {
      await fixture?.teardown();
    });

    it('appends and reads a stream with 1-based positions and the metadata it was given', async () => {
      const streamId = newStreamId();
      const metadata = contractMetadata({ commandId: 'command-1', occurredAt: '2026-01-02T03:04:05.678Z' });
      const appended = await store.appendToStream(
        streamId,
        [
          { type: 'ItemCreated', data: { itemId: streamId, price: { value: '123456789012345678901', currency: 'USD' } } },
          { type: 'ItemPriced', data: { itemId: streamId, tags: ['a', 'b'], nested: { ok: true } } },
        ],
        { expectedVersion: 0, metadata },
      );
      expect(appended.version).toBe(2);
      expect(appended.events.map((event) => event.streamPosition)).toEqual([1, 2]);
      const [first, second] = appended.events as [RecordedEvent, RecordedEvent];
      expect(typeof first.globalPosition).toBe('bigint');
      expect(second.globalPosition).toBeGreaterThan(first.globalPosition);
      expect(first.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

      const read = await store.readStream(streamId);
      expect(read.version).toBe(2);
      expect(read.events).toEqual(appended.events);
      expect(read.events[0]?.data).toEqual({ itemId: streamId, price: { value: '123456789012345678901', currency: 'USD' } });
      expect(read.events[0]?.metadata).toEqual({ ...metadata, schemaVersion: 1 });

      const tail = await store.readStream(streamId, { fromPosition: 2 });
      expect(tail).toEqual({ events: [second], version: 2 });
      expect(await store.readStream(streamId, { fromPosition: 3 })).toEqual({ events: [], version: 2 });
      expect(await store.readStream(newStreamId())).toEqual({ events: [], version: 0 });
    });

    it('stamps occurredAt when the caller gives none and continues a stream at its version or with any', async () => {
      const streamId = newStreamId();
      const before = Date.now();
      const first = await store.appendToStream(streamId, [{ type: 'ItemCreated', data: {} }], {
        expectedVersion: 0,
        metadata: contractMetadata(),
      });
      expect(Date.parse(first.events[0]!.metadata.occurredAt)).toBeGreaterThanOrEqual(before - 1_000);
      const second = await store.appendToStream(streamId, [{ type: 'ItemPriced', data: {} }], {
        expectedVersion: 1,
        metadata: contractMetadata(),
      });
      const third = await store.appendToStream(streamId, [{ type: 'ItemPriced', data: {} }], {
        expectedVersion: 'any',
        metadata: contractMetadata(),
      });
      expect([second.version, third.version]).toEqual([2, 3]);
      expect(third.events[0]?.streamPosition).toBe(3);
    });

    it('records each event with its own metadata when the events of one append carry it', async () => {
      const streamId = newStreamId();
      const append = contractMetadata({ occurredAt: '2026-01-02T03:04:05.678Z' });
      const second = contractMetadata({ commandId: 'command-2' });
      const appended = await store.appendToStream(
        streamId,
        [
          { type: 'ItemCreated', data: {} },
          { type: 'ItemPriced', data: {}, metadata: second },
        ],
        { expectedVersion: 0, metadata: append },
      );
      const { occurredAt: _stamped, ...secondWithoutTime } = (await store.readStream(streamId)).events[1]!.metadata;
      expect(appended.events.map((event) => event.metadata.requestId)).toEqual([append.requestId, second.requestId]);
      expect((await store.readStream(streamId)).events.map((event) => event.metadata.correlationId)).toEqual([
        append.correlationId,
        second.correlationId,
      ]);
      expect(secondWithoutTime).toEqual({ ...second, schemaVersion: 1 });
      expect(appended.events[0]!.metadata.occurredAt).toBe('2026-01-02T03:04:05.678Z');
    });

    it('appends to several streams at once, each at its own version', async () => {
      const [first, second] = [newStreamId(), newStreamId()];
      await store.appendToStream(second, [{ type: 'ItemCreated', data: {} }], { expectedVersion: 0, metadata: contractMetadata() });
      const own = contractMetadata();
      const results = await store.appendToStreams(
        [
          {
            streamId: first,
            events: [
              { type: 'ItemCreated', data: { n: 1 } },
              { type: 'ItemPriced', data: { n: 2 } },
            ],
            expectedVersion: 0,
          },
          { streamId: second, events: [{ type: 'ItemPriced', data: { n: 3 }, metadata: own }], expectedVersion: 1 },
        ],
        { metadata: contractMetadata() },
      );
      const [firstResult, secondResult] = results as { version: number; events: RecordedEvent[] }[];
      expect([firstResult!.version, secondResult!.version]).toEqual([2, 2]);
      expect(firstResult!.events.map((event) => [event.streamId, event.streamPosition, event.data])).toEqual([
        [first, 1, { n: 1 }],
        [first, 2, { n: 2 }],
      ]);
      expect(secondResult!.events.map((event) => [event.streamPosition, event.metadata.requestId])).toEqual([[2, own.requestId]]);
      expect((await store.readStream(first)).events).toEqual(firstResult!.events);
      expect((await store.readStream(second)).events.slice(1)).toEqual(secondResult!.events);
    });

    it('appends the other streams when one of several is not at its expected version', async () => {
      const [fresh, stale, other] = [newStreamId(), newStreamId(), newStreamId()];
      await store.appendToStream(
        stale,
        [
          { type: 'ItemCreated', data: {} },
          { type: 'ItemPriced', data: {} },
        ],
        { expectedVersion: 0, metadata: contractMetadata() },
      );
      const results = await store.appendToStreams(
        [
          { streamId: fresh, events: [{ type: 'ItemCreated', data: {} }], expectedVersion: 0 },
          { streamId: stale, events: [{ type: 'ItemPriced', data: {} }], expectedVersion: 1 },
          { streamId: other, events: [{ type: 'ItemCreated', data: {} }], expectedVersion: 0 },
        ],
        { metadata: contractMetadata() },
      );
      expect(results[1]).toBeInstanceOf(WrongExpectedVersionError);
      expect(results[1]).toMatchObject({ streamId: stale, expected: 1, actual: 2 });
      expect([results[0], results[2]].map((result) => (result instanceof WrongExpectedVersionError ? 'refused' : result!.version))).toEqual(
        [1, 1],
      );
      expect([
        (await store.readStream(fresh)).version,
        (await store.readStream(stale)).version,
        (await store.readStream(other)).version,
      ]).toEqual([1, 2, 1]);
    });

    it('appends to several streams atomically, new ones expecting none, in global order and readable by every path', async () => {
      const [claimA, claimB, owner] = [newStreamId(), newStreamId(), newStreamId()];
      await store.appendToStream(claimB, [{ type: 'ItemReleased', data: {} }], { expectedVersion: 0, metadata: contractMetadata() });
      const start = await store.headPosition();
      const own = contractMetadata();
      const results = await store.appendToStreamsAtomically(
        [
          { streamId: claimA, events: [{ type: 'ItemHeld', data: { ownerId: owner } }], expectedVersion: 0 },
          { streamId: claimB, events: [{ type: 'ItemHeld', data: { ownerId: owner } }], expectedVersion: 1 },
          {
            streamId: owner,
            events: [
              { type: 'ItemCreated', data: { n: 1 } },
              { type: 'ItemPriced', data: { n: 2 }, metadata: own },
            ],
            expectedVersion: 0,
          },
        ],
        { metadata: contractMetadata() },
      );
      expect(results.map(({ version }) => version)).toEqual([1, 2, 2]);
      const appended = results.flatMap(({ events }) => events);
      expect(appended.map((event) => [event.streamId, event.streamPosition, event.type])).toEqual([
        [claimA, 1, 'ItemHeld'],
        [claimB, 2, 'ItemHeld'],
        [owner, 1, 'ItemCreated'],
        [owner, 2, 'ItemPriced'],
      ]);
      expect(results[2]!.events[1]!.metadata.requestId).toBe(own.requestId);
      expect((await store.readStream(owner)).events).toStrictEqual(results[2]!.events);
      // The outbox and the projections read exactly these events, once, after the start, in order.
      const read = await readAllAfter(store, start);
      expect(read.map((event) => event.eventId).sort()).toEqual(appended.map((event) => event.eventId).sort());
      const positions = read.map((event) => event.globalPosition);
      expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
      expect(await store.headPosition()).toBe(positions[positions.length - 1]);
    });

    it('writes nothing to any stream when one stream of an atomic append is not at its expected version', async () => {
      const [fresh, taken, owner] = [newStreamId(), newStreamId(), newStreamId()];
      await store.appendToStream(taken, [{ type: 'ItemHeld', data: {} }], { expectedVersion: 0, metadata: contractMetadata() });
      const start = await store.headPosition();
      const refused = store.appendToStreamsAtomically(
        [
          { streamId: fresh, events: [{ type: 'ItemHeld', data: {} }], expectedVersion: 0 },
          { streamId: taken, events: [{ type: 'ItemHeld', data: {} }], expectedVersion: 0 },
          { streamId: owner, events: [{ type: 'ItemCreated', data: {} }], expectedVersion: 0 },
        ],
        { metadata: contractMetadata() },
      );
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(refused).rejects.toMatchObject({ streamId: taken, expected: 0, actual: 1 });
      expect([
        (await store.readStream(fresh)).version,
        (await store.readStream(taken)).version,
        (await store.readStream(owner)).version,
      ]).toEqual([0, 1, 0]);
      // Nothing for the outbox either: no event past the head the refusal found.
      expect(await store.readAll({ after: start, limit: 10 })).toEqual([]);
      expect(await store.headPosition()).toBe(start);
    });

    it('lets exactly one of 6 atomic appends racing for the same new stream win, and writes nothing of the others', async () => {
      const shared = newStreamId();
      const owners = Array.from({ length: 6 }, () => newStreamId());
      const results = await Promise.allSettled(
        owners.map((owner) =>
          store.appendToStreamsAtomically(
            [
              { streamId: shared, events: [{ type: 'ItemHeld', data: { owner } }], expectedVersion: 0 },
              { streamId: owner, events: [{ type: 'ItemCreated', data: {} }], expectedVersion: 0 },
            ],
            { metadata: contractMetadata() },
          ),
        ),
      );
      const winners = owners.filter((_, index) => results[index]!.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WrongExpectedVersionError);
      expect((await store.readStream(shared)).events.map((event) => event.data['owner'])).toEqual(winners);
      const versions = await Promise.all(owners.map(async (owner) => (await store.readStream(owner)).version));
      expect(versions.filter((version) => version === 1)).toHaveLength(1);
    });

    it('returns from an append the events exactly as every read path records them', async () => {
      const streamId = newStreamId();
      const start = await store.headPosition();
      const first = await store.appendToStream(
        streamId,
        [
          { type: 'ItemCreated', data: { n: 1, gone: undefined } },
          { type: 'ItemPriced', data: { n: 2 } },
        ],
        {
          expectedVersion: 0,
          metadata: contractMetadata(),
        },
      );
      const second = await store.appendToStream(streamId, [{ type: 'ItemPriced', data: { n: 3 } }], {
        expectedVersion: 'any',
        metadata: contractMetadata(),
      });
      expect([first.version, second.version]).toEqual([2, 3]);
      const appended = [...first.events, ...second.events];
      expect(appended.map((event) => event.streamPosition)).toEqual([1, 2, 3]);
      expect((await store.readStream(streamId)).events).toStrictEqual(appended);
      expect(await readAllAfter(store, start)).toStrictEqual(appended);
      expect(first.events[1]!.globalPosition).toBeLessThan(second.events[0]!.globalPosition);
      expect(await store.headPosition()).toBe(second.events[0]!.globalPosition);
    });

    it('finds the events of a stream whose data carries one of the given ids, oldest first', async () => {
      const [streamId, otherStream] = [newStreamId(), newStreamId()];
      const metadata = contractMetadata();
      await store.appendToStream(
        streamId,
        [
          { type: 'ItemCreated', data: { operationId: 'op-1' } },
          { type: 'ItemHeld', data: { operationId: 'op-2', holdId: 'hold-1' } },
          { type: 'ItemPriced', data: { operationId: 'op-3', note: 'op-1' } },
          { type: 'ItemReleased', data: { operationId: 'op-4', holdId: 'hold-1' } },
          { type: 'ItemRenamed', data: { itemId: 'i', title: 'old' }, schemaVersion: 1 },
          { type: 'ItemCounted', data: { operationId: 7 } },
        ],
        { expectedVersion: 0, metadata },
      );
      await store.appendToStream(otherStream, [{ type: 'ItemCreated', data: { operationId: 'op-1' } }], { expectedVersion: 0, metadata });
      const found = await store.findInStream(streamId, { operationId: ['op-1', 'op-4', 'op-9', '7'], holdId: ['hold-1'] });
      expect(found.map((event) => [event.streamId, event.streamPosition, event.type])).toEqual([
        [streamId, 1, 'ItemCreated'],
        [streamId, 2, 'ItemHeld'],
        [streamId, 4, 'ItemReleased'],
      ]);
      expect(found).toEqual((await store.readStream(streamId)).events.filter((event) => [1, 2, 4].includes(event.streamPosition)));
      expect(await store.findInStream(streamId, { operationId: [], holdId: [] })).toEqual([]);
      expect(await store.findInStream(newStreamId(), { operationId: ['op-1'] })).toEqual([]);
      // Upcast like every other read path.
      expect((await store.findInStream(streamId, { itemId: ['i'] })).map((event) => event.data)).toEqual([
        { itemId: 'i', name: 'old', locale: 'en' },
      ]);
    });

    it("lists one platform's stored events newest first on (occurredAt, id), filtered, counted and paged by key", async () => {
      const [platformId, otherPlatform] = [`Platform:${randomUUID()}`, `Platform:${randomUUID()}`];
      const [streamA, streamB, streamC, owner] = [newStreamId(), newStreamId(), newStreamId(), `Owner:${randomUUID()}`];
      const at = (second: number) => `2001-02-03T04:05:0${second}.000Z`;
      const own = (second: number, correlationId: string, platform = platformId) => ({
        metadata: contractMetadata({ platformId: platform, correlationId, occurredAt: at(second) }),
      });
      const metadata = contractMetadata({ platformId });
      await store.appendToStream(
        streamA,
        [
          { type: 'ItemCreated', data: { ownerId: owner }, ...own(1, 'c1') },
          { type: 'ItemPriced', data: { n: 2 }, ...own(2, 'c1') },
        ],
        { expectedVersion: 0, metadata },
      );
      await store.appendToStream(streamB, [{ type: 'ItemCreated', data: { note: `${owner}2` }, ...own(2, 'c2') }], {
        expectedVersion: 0,
        metadata,
      });
      await store.appendToStream(owner, [{ type: 'ItemCreated', data: {}, ...own(3, 'c2') }], { expectedVersion: 0, metadata });
      await store.appendToStream(streamC, [{ type: 'ItemCreated', data: { ownerId: owner }, ...own(3, 'c1', otherPlatform) }], {
        expectedVersion: 0,
        metadata,
      });
      await store.appendToStream(
        newStreamId(),
        [{ type: 'ItemRenamed', data: { itemId: 'i', title: 'old' }, schemaVersion: 1, ...own(0, 'c3') }],
        { expectedVersion: 0, metadata },
      );
      const everything = (await Promise.all([streamA, streamB, owner].map(async (id) => (await store.readStream(id)).events))).flat();
      const renamed = (await store.listEvents({ platformId, type: 'ItemRenamed' }, { limit: 5 })).events;
      const key = (event: RecordedEvent) => `${event.metadata.occurredAt} ${event.eventId}`;
      const newest = [...everything, ...renamed].sort((a, b) => (key(a) < key(b) ? 1 : -1));
      const list = (filter: Omit<StoredEventsFilter, 'platformId'>, limit = 10) => store.listEvents({ platformId, ...filter }, { limit });
      const ids = async (filter: Omit<StoredEventsFilter, 'platformId'>) => {
        const { events, totalCount } = await list(filter);
        return { types: events.map((event) => `${event.streamId === owner ? 'owner' : event.streamId}:${event.type}`), totalCount };
      };

      expect(await list({})).toEqual({ events: newest, totalCount: 5 });
      // Upcast like every other read path.
      expect(renamed.map((event) => event.data)).toEqual([{ itemId: 'i', name: 'old', locale: 'en' }]);
      expect(await ids({ resourceId: streamA })).toEqual({ types: [`${streamA}:ItemPriced`, `${streamA}:ItemCreated`], totalCount: 2 });
      expect((await list({ correlationId: 'c1' })).events.map(key)).toEqual(newest.filter((event) => event.streamId === streamA).map(key));
      expect((await list({ type: 'ItemCreated' })).totalCount).toBe(3);
      expect((await list({ occurredFrom: at(2), occurredTo: at(2) })).events.map(key)).toEqual(
        newest.filter((event) => event.metadata.occurredAt === at(2)).map(key),
      );
      // The stream itself, or the id as a whole string in the data ("<owner>2" is another id).
      expect(await ids({ mentioning: owner })).toEqual({ types: ['owner:ItemCreated', `${streamA}:ItemCreated`], totalCount: 2 });
      expect(await list({ resourceId: newStreamId() })).toEqual({ events: [], totalCount: 0 });
      expect((await store.listEvents({ platformId: otherPlatform }, { limit: 10 })).events.map((event) => event.streamId)).toEqual([
        streamC,
      ]);

      const pages: RecordedEvent[][] = [];
      let before: StoredEventsKey | undefined;
      for (let round = 0; round < 5; round += 1) {
        const { events, totalCount } = await store.listEvents({ platformId }, { ...(before ? { before } : {}), limit: 2 });
        expect(totalCount).toBe(5);
        if (events.length === 0) break;
        pages.push(events);
        const last = events[events.length - 1]!;
        before = { occurredAt: last.metadata.occurredAt, eventId: last.eventId };
      }
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(newest);
    });

    it("keeps each service's streams to itself on a shared server", async () => {
      const neighbour = await fixture.openNeighbour();
      const streamId = newStreamId();
      const [ownStart, neighbourStart] = [await store.headPosition(), await neighbour.headPosition()];
      const own = await store.appendToStream(streamId, [{ type: 'ItemCreated', data: { owner: 'own' } }], {
        expectedVersion: 0,
        metadata: contractMetadata(),
      });
      const theirs = await neighbour.appendToStream(streamId, [{ type: 'ItemCreated', data: { owner: 'neighbour' } }], {
        expectedVersion: 0,
        metadata: contractMetadata(),
      });
      expect((await store.readStream(streamId)).events).toEqual(own.events);
      expect((await neighbour.readStream(streamId)).events).toEqual(theirs.events);
      expect(await store.findInStream(streamId, { owner: ['own', 'neighbour'] })).toEqual(own.events);
      expect((await readAllAfter(store, ownStart)).map((event) => event.data['owner'])).toEqual(['own']);
      expect((await readAllAfter(neighbour, neighbourStart)).map((event) => event.data['owner'])).toEqual(['neighbour']);
    });

    it('rejects an append whose expected version is not the stream version', async () => {
      const streamId = newStreamId();
      await store.appendToStream(
        streamId,
        [
          { type: 'ItemCreated', data: {} },
          { type: 'ItemPriced', data: {} },
        ],
        {
          expectedVersion: 0,
          metadata: contractMetadata(),
        },
      );
      const stale = store.appendToStream(streamId, [{ type: 'ItemPriced', data: {} }], {
        expectedVersion: 1,
        metadata: contractMetadata(),
      });
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(stale).rejects.toMatchObject({ streamId, expected: 1, actual: 2 });
      await expect(
        store.appendToStream(streamId, [{ type: 'ItemCreated', data: {} }], { expectedVersion: 0, metadata: contractMetadata() }),
      ).rejects.toBeInstanceOf(WrongExpectedVersionError);
      await expect(
        store.appendToStream(newStreamId(), [{ type: 'ItemPriced', data: {} }], { expectedVersion: 3, metadata: contractMetadata() }),
      ).rejects.toMatchObject({ actual: 0 });
      expect((await store.readStream(streamId)).version).toBe(2);
    });

    it('lets exactly one of 8 writers racing on the same expected version win', async () => {
      const streamId = newStreamId();
      await store.appendToStream(streamId, [{ type: 'ItemCreated', data: {} }], { expectedVersion: 0, metadata: contractMetadata() });
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, writer) =>
          store.appendToStream(
            streamId,
            [
              { type: 'ItemPriced', data: { writer } },
              { type: 'ItemPriced', data: { writer } },
            ],
            {
              expectedVersion: 1,
              metadata: contractMetadata(),
            },
          ),
        ),
      );
      const winners = results.filter((result) => result.status === 'fulfilled');
      const losers = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(7);
      for (const loser of losers) expect(loser.reason).toBeInstanceOf(WrongExpectedVersionError);
      const { events, version } = await store.readStream(streamId);
      expect(version).toBe(3);
      const writers = new Set(events.slice(1).map((event) => event.data['writer']));
      expect(writers.size).toBe(1);
    });

    it('reads all streams in global order after a position, at most limit at a time', async () => {
      const start = await store.headPosition();
      const streams = [newStreamId(), newStreamId()];
      for (const streamId of streams) {
        await store.appendToStream(
          streamId,
          [
            { type: 'ItemCreated', data: {} },
            { type: 'ItemPriced', data: {} },
          ],
          {
            expectedVersion: 0,
            metadata: contractMetadata(),
          },
        );
      }
      const all = await readAllAfter(store, start);
      expect(all.map((event) => [event.streamId, event.streamPosition])).toEqual([
        [streams[0], 1],
        [streams[0], 2],
        [streams[1], 1],
        [streams[1], 2],
      ]);
      const positions = all.map((event) => event.globalPosition);
      expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
      expect(await store.readAll({ after: start, limit: 3 })).toEqual(all.slice(0, 3));
      expect(await store.readAll({ after: all[1]!.globalPosition, limit: 10 })).toEqual(all.slice(2));
      expect(await store.headPosition()).toBe(all[3]!.globalPosition);
    });

    it('upcasts stored events by schemaVersion on every read path', async () => {
      const streamId = newStreamId();
      const start = await store.headPosition();
      const appended = await store.appendToStream(
        streamId,
        [
          { type: 'ItemRenamed', data: { itemId: streamId, title: 'old shape' }, schemaVersion: 1 },
          { type: 'ItemRenamed', data: { itemId: streamId, name: 'current shape', locale: 'fr' }, schemaVersion: 3 },
          { type: 'ItemPriced', data: { title: 'no upcaster' }, schemaVersion: 1 },
        ],
        { expectedVersion: 0, metadata: contractMetadata() },
      );
      const expected = [
        { data: { itemId: streamId, name: 'old shape', locale: 'en' }, schemaVersion: 3 },
        { data: { itemId: streamId, name: 'current shape', locale: 'fr' }, schemaVersion: 3 },
        { data: { title: 'no upcaster' }, schemaVersion: 1 },
      ];
      const shape = (events: RecordedEvent[]) => events.map((event) => ({ data: event.data, schemaVersion: event.metadata.schemaVersion }));
      expect(shape(appended.events)).toEqual(expected);
      expect(shape((await store.readStream(streamId)).events)).toEqual(expected);
      expect(shape(await readAllAfter(store, start))).toEqual(expected);
    });

    it('never lets a reader pass an event whose transaction commits late', async () => {
      if (!fixture.openSlowAppend) {
        console.warn(`${name}: the store has no reader-visible open transactions, so the late-commit case does not apply.`);
        return;
      }
      const start = await store.headPosition();
      const slowStream = newStreamId();
      const fastStream = newStreamId();
      // The slow writer takes the lower global position, then the fast one commits a higher one.
      const slow = await fixture.openSlowAppend(slowStream);
      const fast = await store.appendToStream(fastStream, [{ type: 'ItemCreated', data: {} }], {
        expectedVersion: 0,
        metadata: contractMetadata(),
      });
      expect((await store.readStream(fastStream)).version).toBe(1);
      expect(await store.readAll({ after: start, limit: 100 })).toEqual([]);
      expect(await store.headPosition()).toBe(start);

      await slow.commit();
      const all = await readAllAfter(store, start);
      expect(all.map((event) => event.streamId)).toEqual([slowStream, fastStream]);
      expect(all[1]).toEqual(fast.events[0]);
      expect(all[0]!.globalPosition).toBeLessThan(all[1]!.globalPosition);
    });

    it('delivers every event exactly once, in order, to a subscriber polling during concurrent appends', async () => {
      const start = await store.headPosition();
      const seen: RecordedEvent[] = [];
      // The subscriber stops at the last appended position, known once every writer is done.
      const stop: { at?: bigint } = {};
      const subscriber = (async () => {
        let cursor = start;
        for (let round = 0; round < 100_000; round += 1) {
          if (stop.at !== undefined && cursor >= stop.at) return;
          const batch = await store.readAll({ after: cursor, limit: 7 });
          seen.push(...batch);
          cursor = batch[batch.length - 1]?.globalPosition ?? cursor;
          if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      const writers = Array.from({ length: 6 }, async (_, writer) => {
        const streamId = newStreamId();
        let last = 0n;
        for (let index = 0; index < 15; index += 1) {
          const appended = await store.appendToStream(
            streamId,
            [
              { type: 'ItemPriced', data: { writer, index } },
              { type: 'ItemPriced', data: { writer, index } },
            ],
            { expectedVersion: index * 2, metadata: contractMetadata() },
          );
          last = appended.events[1]!.globalPosition;
        }
        return last;
      });
      stop.at = (await Promise.all(writers)).reduce((highest, last) => (last > highest ? last : highest), 0n);
      await subscriber;
      const everything = await readAllAfter(store, start);
      expect(everything).toHaveLength(6 * 15 * 2);
      expect(seen.map((event) => event.eventId)).toEqual(everything.map((event) => event.eventId));
    });
  });
};
