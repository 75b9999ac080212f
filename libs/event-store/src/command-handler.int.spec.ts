import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { handleCommand } from './command-handler';
import { createPostgresSnapshotStore, type SnapshotCodec, type SnapshotStore } from './snapshot-store';
import { Pool } from 'pg';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { type EventStore, WrongExpectedVersionError } from './types';

const database = useTestDatabase();

// Pins down command handling on the PostgreSQL store: decide and append, re-deciding after a
// version conflict, and commandId idempotency.

type AccountEvent =
  { type: 'AccountOpened'; data: { accountId: string } } | { type: 'MoneyDeposited'; data: { accountId: string; amount: string } };
type Account = { opened: boolean; balance: bigint; deposits: number };

const decider = {
  initialState: (): Account => ({ opened: false, balance: 0n, deposits: 0 }),
  evolve: (state: Account, event: AccountEvent): Account => {
    switch (event.type) {
      case 'AccountOpened':
        return { ...state, opened: true };
      case 'MoneyDeposited':
        return { ...state, balance: state.balance + BigInt(event.data.amount), deposits: state.deposits + 1 };
    }
  },
};

const open =
  (accountId: string) =>
  (state: Account): AccountEvent[] =>
    state.opened ? [] : [{ type: 'AccountOpened', data: { accountId } }];
const deposit =
  (accountId: string, amount: string) =>
  (state: Account): AccountEvent[] => {
    if (!state.opened) throw new Error('The account is not open.');
    return [{ type: 'MoneyDeposited', data: { accountId, amount } }];
  };

/** Delegates to the real store but holds every first read until `count` callers have read. */
const withReadBarrier = (store: EventStore, count: number): EventStore & { reads: () => number } => {
  let reads = 0;
  let release!: () => void;
  const barrier = new Promise<void>((resolve) => (release = resolve));
  return {
    ...store,
    reads: () => reads,
    readStream: async (streamId, options) => {
      const result = await store.readStream(streamId, options);
      reads += 1;
      if (reads === count) release();
      if (reads <= count) await barrier;
      return result;
    },
  };
};

describe('handleCommand', () => {
  let testSchema: TestSchema;
  let store: EventStore;

  beforeAll(async () => {
    testSchema = await createTestSchema(database.url);
    store = createPostgresEventStore({ connectionString: database.url, schema: testSchema.schema, poolSize: 4 });
  });

  afterAll(async () => {
    await store?.close();
    await testSchema?.drop();
  });

  it('loads, decides, appends with metadata and returns the evolved state', async () => {
    const accountId = `Account:${randomUUID()}`;
    const metadata = contractMetadata();
    const opened = await handleCommand(store, accountId, decider, open(accountId), { metadata });
    expect(opened).toMatchObject({ version: 1, replayed: false, state: { opened: true, balance: 0n } });
    expect(opened.events.map((event) => event.type)).toEqual(['AccountOpened']);
    const deposited = await handleCommand(store, accountId, decider, deposit(accountId, '9007199254740993'), { metadata });
    expect(deposited.state).toEqual({ opened: true, balance: 9007199254740993n, deposits: 1 });
    expect(deposited.events[0]?.metadata).toMatchObject({ platformId: metadata.platformId, correlationId: metadata.correlationId });
    const nothing = await handleCommand(store, accountId, decider, open(accountId), { metadata });
    expect(nothing).toMatchObject({ events: [], version: 2, replayed: false });
  });

  it('with assumeNew creates without reading, and decides on the real state when the stream exists', async () => {
    const accountId = `Account:${randomUUID()}`;
    const metadata = contractMetadata();
    const counted = withReadBarrier(store, 0);
    const created = await handleCommand(counted, accountId, decider, open(accountId), { metadata, assumeNew: true });
    expect(created).toMatchObject({ version: 1, state: { opened: true } });
    expect(counted.reads()).toBe(0);
    // Wrong guess: the stream exists, so the decision is re-made on what is stored (a no-op here).
    const again = await handleCommand(counted, accountId, decider, open(accountId), { metadata, assumeNew: true });
    expect(again).toMatchObject({ events: [], version: 1, replayed: false });
    expect(counted.reads()).toBe(1);
    expect((await store.readStream(accountId)).events.map((event) => event.type)).toEqual(['AccountOpened']);
  });

  it('propagates a decision error and appends nothing', async () => {
    const accountId = `Account:${randomUUID()}`;
    await expect(handleCommand(store, accountId, decider, deposit(accountId, '1'), { metadata: contractMetadata() })).rejects.toThrow(
      'The account is not open.',
    );
    expect((await store.readStream(accountId)).version).toBe(0);
  });

  it('re-decides after a version conflict so two concurrent deposits both land', async () => {
    const accountId = `Account:${randomUUID()}`;
    await handleCommand(store, accountId, decider, open(accountId), { metadata: contractMetadata() });
    const racing = withReadBarrier(store, 2);
    const results = await Promise.all([
      handleCommand(racing, accountId, decider, deposit(accountId, '100'), { metadata: contractMetadata() }),
      handleCommand(racing, accountId, decider, deposit(accountId, '250'), { metadata: contractMetadata() }),
    ]);
    // Both read version 1; the loser re-read, so there were three reads in all.
    expect(racing.reads()).toBe(3);
    expect(results.map((result) => result.version).sort()).toEqual([2, 3]);
    const final = await handleCommand(store, accountId, decider, () => [], { metadata: contractMetadata() });
    expect(final.state).toEqual({ opened: true, balance: 350n, deposits: 2 });
  });

  it('gives up with WrongExpectedVersionError once the retries are spent', async () => {
    const accountId = `Account:${randomUUID()}`;
    await handleCommand(store, accountId, decider, open(accountId), { metadata: contractMetadata() });
    const racing = withReadBarrier(store, 2);
    const results = await Promise.allSettled([
      handleCommand(racing, accountId, decider, deposit(accountId, '1'), { metadata: contractMetadata(), retries: 0 }),
      handleCommand(racing, accountId, decider, deposit(accountId, '2'), { metadata: contractMetadata(), retries: 0 }),
    ]);
    const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]?.reason).toBeInstanceOf(WrongExpectedVersionError);
    expect((await store.readStream(accountId)).version).toBe(2);
  });

  it('treats a repeated commandId as done: replayed, nothing decided or appended', async () => {
    const accountId = `Account:${randomUUID()}`;
    await handleCommand(store, accountId, decider, open(accountId), { metadata: contractMetadata() });
    const first = await handleCommand(store, accountId, decider, deposit(accountId, '70'), {
      metadata: contractMetadata(),
      commandId: 'deposit-1',
    });
    expect(first.replayed).toBe(false);
    expect(first.events[0]?.metadata.commandId).toBe('deposit-1');
    let decided = 0;
    const again = await handleCommand(
      store,
      accountId,
      decider,
      (state) => {
        decided += 1;
        return deposit(accountId, '70')(state);
      },
      { metadata: contractMetadata(), commandId: 'deposit-1' },
    );
    expect(decided).toBe(0);
    expect(again).toMatchObject({ replayed: true, version: 2, state: { balance: 70n, deposits: 1 } });
    expect(again.events.map((event) => event.eventId)).toEqual(first.events.map((event) => event.eventId));
    expect((await store.readStream(accountId)).version).toBe(2);
  });

  describe('with snapshots', () => {
    let pool: Pool;
    let snapshots: SnapshotStore;
    const codec: SnapshotCodec<Account> = {
      deciderVersion: 'account/1',
      serialize: (state) => ({ ...state, balance: state.balance.toString() }),
      deserialize: (json) => {
        const { opened, balance, deposits } = json as { opened: boolean; balance: string; deposits: number };
        return { opened, balance: BigInt(balance), deposits };
      },
    };
    const snapshotted = { ...decider, snapshot: codec };
    /** Counts the events each readStream returns, and from where it read. */
    const counting = (inner: EventStore) => {
      const reads: { from: number; events: number }[] = [];
      return {
        reads,
        store: {
          ...inner,
          readStream: async (streamId: string, options?: { fromPosition?: number }) => {
            const result = await inner.readStream(streamId, options);
            reads.push({ from: options?.fromPosition ?? 1, events: result.events.length });
            return result;
          },
        } as EventStore,
      };
    };
    const deposits = async (target: EventStore, accountId: string, count: number, every: number, store: SnapshotStore = snapshots) => {
      for (let index = 0; index < count; index += 1) {
        await handleCommand(target, accountId, snapshotted, deposit(accountId, '1'), {
          metadata: contractMetadata(),
          snapshots: { store, every },
        });
      }
    };

    beforeAll(() => {
      pool = new Pool({ connectionString: database.url, max: 2 });
      snapshots = createPostgresSnapshotStore({ pool, connectionString: database.url, schema: testSchema.schema });
    });
    afterAll(async () => {
      await pool?.end();
    });

    it('takes one every N events and then folds only the events after it, to the state a full read gives', async () => {
      const accountId = `Account:${randomUUID()}`;
      await handleCommand(store, accountId, snapshotted, open(accountId), {
        metadata: contractMetadata(),
        snapshots: { store: snapshots, every: 5 },
      });
      await deposits(store, accountId, 6, 5);
      expect(await snapshots.load(accountId, 'account/1')).toMatchObject({
        version: 5,
        state: { opened: true, balance: '4', deposits: 4 },
      });
      const counted = counting(store);
      const result = await handleCommand(counted.store, accountId, snapshotted, () => [], {
        metadata: contractMetadata(),
        snapshots: { store: snapshots, every: 5 },
      });
      expect(counted.reads).toEqual([{ from: 6, events: 2 }]);
      const full = await handleCommand(store, accountId, decider, () => [], { metadata: contractMetadata() });
      expect(result.state).toEqual(full.state);
      expect(result.state).toEqual({ opened: true, balance: 6n, deposits: 6 });
      expect(result.version).toBe(7);
      // The next one is due 5 events after the one loaded, not at every multiple of 5.
      await deposits(store, accountId, 3, 5);
      expect((await snapshots.load(accountId, 'account/1'))?.version).toBe(10);
    });

    it('ignores a snapshot of another decider version and one ahead of its stream, and rebuilds after they are dropped', async () => {
      const accountId = `Account:${randomUUID()}`;
      await handleCommand(store, accountId, snapshotted, open(accountId), { metadata: contractMetadata() });
      await deposits(store, accountId, 2, 0);
      await snapshots.save({
        streamId: accountId,
        version: 2,
        deciderVersion: 'account/0',
        state: { opened: true, balance: '999', deposits: 1 },
      });
      let counted = counting(store);
      const ignored = await handleCommand(counted.store, accountId, snapshotted, () => [], {
        metadata: contractMetadata(),
        snapshots: { store: snapshots, every: 0 },
      });
      expect(ignored.state.balance).toBe(2n);
      expect(counted.reads).toEqual([{ from: 1, events: 3 }]);

      await snapshots.save({
        streamId: accountId,
        version: 50,
        deciderVersion: 'account/1',
        state: { opened: true, balance: '999', deposits: 1 },
      });
      counted = counting(store);
      const ahead = await handleCommand(counted.store, accountId, snapshotted, () => [], {
        metadata: contractMetadata(),
        snapshots: { store: snapshots, every: 0 },
      });
      expect(ahead.state.balance).toBe(2n);
      expect(counted.reads.at(-1)).toEqual({ from: 1, events: 3 });

      await snapshots.clear(accountId);
      await deposits(store, accountId, 1, 3);
      expect(await snapshots.load(accountId, 'account/1')).toMatchObject({ version: 4, state: { balance: '3' } });
    });

    it('still detects a conflict when both writers loaded the same snapshot, and re-decides', async () => {
      const accountId = `Account:${randomUUID()}`;
      await handleCommand(store, accountId, snapshotted, open(accountId), { metadata: contractMetadata() });
      await deposits(store, accountId, 2, 1);
      expect((await snapshots.load(accountId, 'account/1'))?.version).toBe(3);
      const racing = withReadBarrier(store, 2);
      const results = await Promise.allSettled([
        handleCommand(racing, accountId, snapshotted, deposit(accountId, '100'), {
          metadata: contractMetadata(),
          retries: 0,
          snapshots: { store: snapshots, every: 0 },
        }),
        handleCommand(racing, accountId, snapshotted, deposit(accountId, '250'), {
          metadata: contractMetadata(),
          retries: 0,
          snapshots: { store: snapshots, every: 0 },
        }),
      ]);
      const rejected = results.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
      expect(rejected).toHaveLength(1);
      expect(rejected[0]?.reason).toBeInstanceOf(WrongExpectedVersionError);
      // The winner's deposit is on top of the snapshot's state; the loser's was not applied.
      const full = await handleCommand(store, accountId, decider, () => [], { metadata: contractMetadata() });
      expect(full).toMatchObject({ version: 4, state: { deposits: 3 } });
      expect([102n, 252n]).toContain(full.state.balance);
    });

    it('never fails a command whose snapshot cannot be written, and logs the stream and version', async () => {
      const accountId = `Account:${randomUUID()}`;
      const broken: SnapshotStore = { ...snapshots, save: () => Promise.reject(new Error('disk full')) };
      const warnings: Record<string, unknown>[] = [];
      const logger = {
        info: () => undefined,
        error: () => undefined,
        warn: (details: Record<string, unknown>) => void warnings.push(details),
      };
      await handleCommand(store, accountId, snapshotted, open(accountId), { metadata: contractMetadata() });
      const result = await handleCommand(store, accountId, snapshotted, deposit(accountId, '7'), {
        metadata: contractMetadata(),
        snapshots: { store: broken, every: 1, logger },
      });
      expect(result).toMatchObject({ version: 2, state: { balance: 7n } });
      expect(warnings).toEqual([expect.objectContaining({ streamId: accountId, version: 2 })]);
      expect((await store.readStream(accountId)).version).toBe(2);
    });

    it('reads the whole stream for a command with a commandId, so a repeat older than the snapshot is still recognised', async () => {
      const accountId = `Account:${randomUUID()}`;
      await handleCommand(store, accountId, snapshotted, open(accountId), { metadata: contractMetadata() });
      await handleCommand(store, accountId, snapshotted, deposit(accountId, '70'), {
        metadata: contractMetadata(),
        commandId: 'old-deposit',
      });
      await deposits(store, accountId, 3, 2);
      expect((await snapshots.load(accountId, 'account/1'))?.version).toBeGreaterThanOrEqual(3);
      const again = await handleCommand(store, accountId, snapshotted, deposit(accountId, '70'), {
        metadata: contractMetadata(),
        commandId: 'old-deposit',
        snapshots: { store: snapshots, every: 2 },
      });
      expect(again).toMatchObject({ replayed: true, state: { balance: 73n } });
    });
  });
});
