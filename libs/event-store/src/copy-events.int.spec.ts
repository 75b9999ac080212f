// The copy behind `npm run eventstore:copy`, through the port between two real PostgreSQL stores
// (the KurrentDB target is the same port; its adapter is proven by the contract suite).
import { createTestSchema, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import { copyEvents, copyGroups } from './copy-events';
import { createPostgresEventStore } from './postgres-event-store';
import type { EventStore, RecordedEvent } from './types';

const database = useTestDatabase();

const openStore = async (): Promise<{ store: EventStore; drop: () => Promise<void> }> => {
  const schema = await createTestSchema(database.url);
  const store = createPostgresEventStore({ connectionString: database.url, schema: schema.schema, poolSize: 2 });
  return { store, drop: async () => (await store.close(), await schema.drop()) };
};

const event = (streamId: string, streamPosition: number, globalPosition: bigint) =>
  ({ streamId, streamPosition, globalPosition }) as RecordedEvent;

describe('copyGroups', () => {
  it('given consecutive events of one stream, one append; a new stream or a checkpoint between two events starts another', () => {
    const events = [event('a', 1, 1n), event('a', 2, 2n), event('b', 1, 3n), event('b', 2, 4n), event('b', 3, 5n), event('a', 3, 6n)];
    expect(copyGroups(events, [4n]).map((group) => group.map((one) => one.globalPosition))).toEqual([[1n, 2n], [3n, 4n], [5n], [6n]]);
  });
});

describe('copyEvents', () => {
  const opened: { drop: () => Promise<void> }[] = [];
  afterAll(async () => {
    for (const store of opened) await store.drop();
  });

  it('copies every stream at its versions with data and metadata, translates checkpoints, and resumes without writing twice', async () => {
    const [source, target] = [await openStore(), await openStore()];
    opened.push(source, target);
    const metadata = contractMetadata({ occurredAt: '2026-03-04T05:06:07.000Z', causationId: 'cause-1' });
    await source.store.appendToStream(
      'Item:a',
      [
        { type: 'ItemCreated', data: { n: 1 } },
        { type: 'ItemPriced', data: { n: 2 }, schemaVersion: 2 },
      ],
      { expectedVersion: 0, metadata },
    );
    await source.store.appendToStream('Item:b', [{ type: 'ItemCreated', data: { n: 3 } }], { expectedVersion: 0, metadata });
    const checkpoint = await source.store.headPosition();
    await source.store.appendToStream('Item:a', [{ type: 'ItemPriced', data: { n: 4 } }], { expectedVersion: 2, metadata });
    await source.store.appendToStream('Item:b', [{ type: 'ItemPriced', data: { n: 5 } }], { expectedVersion: 1, metadata });

    // A first run that stopped after Item:a's first append, as a crash would leave it.
    const [firstTwo] = copyGroups((await source.store.readAll({ after: 0n, limit: 10 })).slice(0, 2), []);
    await target.store.appendToStream(
      'Item:a',
      firstTwo!.map(({ type, data, metadata: { schemaVersion, ...rest } }) => ({ type, data, schemaVersion, metadata: rest })),
      {
        expectedVersion: 0,
        metadata,
      },
    );

    const result = await copyEvents({ source: source.store, target: target.store, checkpoints: [0n, checkpoint], batchSize: 2 });
    expect([result.copied, result.skipped]).toEqual([3, 2]);
    const shape = (events: RecordedEvent[]) =>
      events.map(({ streamId, streamPosition, type, data, metadata: stored }) => ({ streamId, streamPosition, type, data, stored }));
    const copied = await target.store.readAll({ after: 0n, limit: 100 });
    expect(shape(copied)).toEqual(shape(await source.store.readAll({ after: 0n, limit: 100 })));
    // The checkpoint after Item:b's first event is that event's position in the target; 0 stays 0.
    expect(result.translated.get(0n)).toBe(0n);
    expect(result.translated.get(checkpoint)).toBe(copied[2]!.globalPosition);

    const again = await copyEvents({ source: source.store, target: target.store, checkpoints: [checkpoint] });
    expect([again.copied, again.skipped]).toEqual([0, 5]);
    expect(again.translated.get(checkpoint)).toBe(copied[2]!.globalPosition);
    expect(await target.store.readAll({ after: 0n, limit: 100 })).toEqual(copied);
  });

  it('refuses to count as copied a target stream that holds other events', async () => {
    const [source, target] = [await openStore(), await openStore()];
    opened.push(source, target);
    await source.store.appendToStream('Item:c', [{ type: 'ItemCreated', data: { n: 1 } }], {
      expectedVersion: 0,
      metadata: contractMetadata(),
    });
    await target.store.appendToStream('Item:c', [{ type: 'ItemCreated', data: { n: 2 } }], {
      expectedVersion: 0,
      metadata: contractMetadata(),
    });
    await expect(copyEvents({ source: source.store, target: target.store })).rejects.toThrow(
      /Item:c: the target already holds a different event at version 1/,
    );
  });
});
