import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { handleCommand } from './command-handler';
import { EventSourcing } from './event-sourcing.module';
import { consoleLogger } from './logger';
import { createPostgresSnapshotStore, type SnapshotCodec, type SnapshotStore } from './snapshot-store';
import { StreamMemory, type StreamMemoryResult } from './stream-memory';
import { Pool } from 'pg';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { type EventStore, type ExpectedVersion, WrongExpectedVersionError } from './types';

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

const codec: SnapshotCodec<Account> = {
  deciderVersion: 'account/1',
  serialize: (state) => ({ ...state, balance: state.balance.toString() }),
  deserialize: (json) => {
    const { opened, balance, deposits } = json as { opened: boolean; balance: string; deposits: number };
    return { opened, balance: BigInt(balance), deposits };
  },
};
const snapshotted = { ...decider, snapshot: codec };

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

  it('with assumeNew, checks a refusal made on the guessed new state against the stream before answering', async () => {
    const accountId = `Account:${randomUUID()}`;
    const metadata = contractMetadata();
    await handleCommand(store, accountId, decider, open(accountId), { metadata });
    // On a new stream a deposit is refused (not open); this stream exists and is open.
    const deposited = await handleCommand(store, accountId, decider, deposit(accountId, '5'), { metadata, assumeNew: true });
    expect(deposited).toMatchObject({ version: 2, state: { opened: true, balance: 5n, deposits: 1 } });
    // On a stream that really is new, the refusal stands, after one read.
    const fresh = `Account:${randomUUID()}`;
    const counted = withReadBarrier(store, 0);
    await expect(handleCommand(counted, fresh, decider, deposit(fresh, '5'), { metadata, assumeNew: true })).rejects.toThrow(
      'The account is not open.',
    );
    expect(counted.reads()).toBe(1);
  });

  it('with assumeNew and no retries, a wrong guess reads the stream instead of failing: the guess is not a collision', async () => {
    const accountId = `Account:${randomUUID()}`;
    const metadata = contractMetadata();
    await handleCommand(store, accountId, decider, open(accountId), { metadata });
    const credit = () => [{ type: 'MoneyDeposited' as const, data: { accountId, amount: '7' } }];
    const result = await handleCommand(store, accountId, decider, credit, { metadata, assumeNew: true, retries: 0 });
    expect(result).toMatchObject({ version: 2, state: { opened: true, balance: 7n } });
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
  describe('with a stream memory', () => {
    /** The store, recording every stream read and the version each append expected. */
    const watched = (inner: EventStore) => {
      const reads: string[] = [];
      const appends: { streamId: string; expectedVersion: ExpectedVersion }[] = [];
      const spied: EventStore = {
        ...inner,
        readStream: (streamId, options) => {
          reads.push(streamId);
          return inner.readStream(streamId, options);
        },
        appendToStream: (streamId, events, options) => {
          appends.push({ streamId, expectedVersion: options.expectedVersion });
          return inner.appendToStream(streamId, events, options);
        },
      };
      return { reads, appends, store: spied };
    };
    /** A process's memory with what it did for each command. */
    const processMemory = (capacity = 16) => {
      const results: StreamMemoryResult[] = [];
      return { results, memory: new StreamMemory(capacity, (result) => results.push(result)) };
    };
    /** Pays 1 of interest on an account that had a deposit; nothing before one. */
    const payInterest =
      (accountId: string) =>
      (state: Account): AccountEvent[] =>
        state.deposits === 0 ? [] : [{ type: 'MoneyDeposited', data: { accountId, amount: '1' } }];

    it('runs a second command on the same stream without reading it, appending at the version it remembers', async () => {
      const accountId = `Account:${randomUUID()}`;
      const spy = watched(store);
      const { memory, results } = processMemory();
      await handleCommand(spy.store, accountId, decider, open(accountId), { metadata: contractMetadata(), memory });
      const second = await handleCommand(spy.store, accountId, decider, deposit(accountId, '10'), { metadata: contractMetadata(), memory });
      const third = await handleCommand(spy.store, accountId, decider, deposit(accountId, '5'), { metadata: contractMetadata(), memory });
      expect(spy.reads).toEqual([accountId]);
      expect(spy.appends.map((append) => append.expectedVersion)).toEqual([0, 1, 2]);
      expect([second.version, third.version]).toEqual([2, 3]);
      expect(third.state).toEqual({ opened: true, balance: 15n, deposits: 2 });
      expect(results).toEqual(['miss', 'hit', 'hit']);
      const full = await handleCommand(store, accountId, decider, () => [], { metadata: contractMetadata() });
      expect(full).toMatchObject({ version: 3, state: third.state });
    });

    it('after another writer appended, conflicts, reads and decides on the fresh state, without spending a retry', async () => {
      const accountId = `Account:${randomUUID()}`;
      const spy = watched(store);
      const { memory, results } = processMemory();
      await handleCommand(spy.store, accountId, decider, open(accountId), { metadata: contractMetadata(), memory });
      // Another process (no memory of its own) and a direct append: the memory is now two events behind.
      await handleCommand(store, accountId, decider, deposit(accountId, '100'), { metadata: contractMetadata() });
      await store.appendToStream(accountId, [{ type: 'MoneyDeposited', data: { accountId, amount: '20' } }], {
        expectedVersion: 2,
        metadata: contractMetadata(),
      });
      const result = await handleCommand(spy.store, accountId, decider, deposit(accountId, '3'), {
        metadata: contractMetadata(),
        memory,
        retries: 0,
      });
      expect(result).toMatchObject({ version: 4, state: { opened: true, balance: 123n, deposits: 3 } });
      expect(spy.appends.map((append) => append.expectedVersion)).toEqual([0, 1, 3]);
      expect(spy.reads).toEqual([accountId, accountId]);
      expect(results).toEqual(['miss', 'stale']);
      // What the fallback read and appended is remembered: the next command reads nothing.
      await handleCommand(spy.store, accountId, decider, deposit(accountId, '1'), { metadata: contractMetadata(), memory });
      expect(spy.reads).toHaveLength(2);
      expect((await store.readStream(accountId)).version).toBe(5);
    });

    it('answers with the fresh decision, not a refusal made on remembered state', async () => {
      const accountId = `Account:${randomUUID()}`;
      const { memory, results } = processMemory();
      // This process reads the empty stream and (rightly) refuses: it remembers an account not open.
      await expect(
        handleCommand(store, accountId, decider, deposit(accountId, '7'), { metadata: contractMetadata(), memory }),
      ).rejects.toThrow('The account is not open.');
      await handleCommand(store, accountId, decider, open(accountId), { metadata: contractMetadata() });
      const result = await handleCommand(store, accountId, decider, deposit(accountId, '7'), { metadata: contractMetadata(), memory });
      expect(result).toMatchObject({ version: 2, state: { opened: true, balance: 7n } });
      expect(results).toEqual(['miss', 'stale']);
    });

    it('decides again on the stream when remembered state decides nothing, and appends what the fresh state asks', async () => {
      const accountId = `Account:${randomUUID()}`;
      const { memory, results } = processMemory();
      await handleCommand(store, accountId, decider, open(accountId), { metadata: contractMetadata(), memory });
      await handleCommand(store, accountId, decider, deposit(accountId, '50'), { metadata: contractMetadata() });
      const result = await handleCommand(store, accountId, decider, payInterest(accountId), { metadata: contractMetadata(), memory });
      expect(result).toMatchObject({ version: 3, state: { balance: 51n, deposits: 2 } });
      expect(results).toEqual(['miss', 'stale']);
    });

    it('replays a commandId from memory without reading or deciding', async () => {
      const accountId = `Account:${randomUUID()}`;
      const spy = watched(store);
      const { memory, results } = processMemory();
      await handleCommand(spy.store, accountId, decider, open(accountId), { metadata: contractMetadata(), memory, assumeNew: true });
      const first = await handleCommand(spy.store, accountId, decider, deposit(accountId, '70'), {
        metadata: contractMetadata(),
        commandId: 'deposit-1',
        memory,
      });
      let decided = 0;
      const again = await handleCommand(
        spy.store,
        accountId,
        decider,
        (state) => {
          decided += 1;
          return deposit(accountId, '70')(state);
        },
        { metadata: contractMetadata(), commandId: 'deposit-1', memory },
      );
      expect(decided).toBe(0);
      expect(spy.reads).toEqual([]);
      expect(again).toMatchObject({ replayed: true, version: 2, state: { balance: 70n, deposits: 1 } });
      expect(again.events.map((event) => event.eventId)).toEqual(first.events.map((event) => event.eventId));
      expect(results).toEqual(['miss', 'hit', 'hit']);
    });

    it('replays a commandId another writer appended, whether the remembered state conflicts or refuses', async () => {
      const conflicting = `Account:${randomUUID()}`;
      const { memory, results } = processMemory();
      await handleCommand(store, conflicting, decider, open(conflicting), { metadata: contractMetadata(), memory });
      const elsewhere = await handleCommand(store, conflicting, decider, deposit(conflicting, '70'), {
        metadata: contractMetadata(),
        commandId: 'deposit-2',
      });
      const conflicted = await handleCommand(store, conflicting, decider, deposit(conflicting, '70'), {
        metadata: contractMetadata(),
        commandId: 'deposit-2',
        memory,
      });
      expect(conflicted).toMatchObject({ replayed: true, version: 2, state: { balance: 70n } });
      expect(conflicted.events.map((event) => event.eventId)).toEqual(elsewhere.events.map((event) => event.eventId));

      const refusing = `Account:${randomUUID()}`;
      await expect(
        handleCommand(store, refusing, decider, deposit(refusing, '5'), { metadata: contractMetadata(), memory }),
      ).rejects.toThrow('The account is not open.');
      await handleCommand(store, refusing, decider, open(refusing), { metadata: contractMetadata() });
      await handleCommand(store, refusing, decider, deposit(refusing, '5'), { metadata: contractMetadata(), commandId: 'deposit-3' });
      const refused = await handleCommand(store, refusing, decider, deposit(refusing, '5'), {
        metadata: contractMetadata(),
        commandId: 'deposit-3',
        memory,
      });
      expect(refused).toMatchObject({ replayed: true, version: 2, state: { balance: 5n } });
      expect(results).toEqual(['miss', 'stale', 'miss', 'stale']);
      expect([(await store.readStream(conflicting)).version, (await store.readStream(refusing)).version]).toEqual([2, 2]);
    });

    it('forgets the stream used longest ago beyond its bound', async () => {
      const [a, b, c] = [1, 2, 3].map(() => `Account:${randomUUID()}`) as [string, string, string];
      const spy = watched(store);
      const { memory } = processMemory(2);
      const run = (accountId: string, decide: (state: Account) => AccountEvent[]) =>
        handleCommand(spy.store, accountId, decider, decide, { metadata: contractMetadata(), memory });
      await run(a, open(a));
      await run(b, open(b));
      await run(a, deposit(a, '1'));
      await run(c, open(c));
      expect(spy.reads).toEqual([a, b, c]);
      await run(a, deposit(a, '1'));
      await run(b, deposit(b, '1'));
      expect(spy.reads).toEqual([a, b, c, b]);
    });

    it('with a snapshot, serves commands without a commandId but never says a commandId is new', async () => {
      const pool = new Pool({ connectionString: database.url, max: 2 });
      const snapshots = createPostgresSnapshotStore({ pool, connectionString: database.url, schema: testSchema.schema });
      try {
        const accountId = `Account:${randomUUID()}`;
        const withSnapshots = { store: snapshots, every: 3 };
        await handleCommand(store, accountId, snapshotted, open(accountId), { metadata: contractMetadata() });
        await handleCommand(store, accountId, snapshotted, deposit(accountId, '70'), { metadata: contractMetadata(), commandId: 'old' });
        for (const amount of ['1', '2']) {
          await handleCommand(store, accountId, snapshotted, deposit(accountId, amount), {
            metadata: contractMetadata(),
            snapshots: withSnapshots,
          });
        }
        expect((await snapshots.load(accountId, 'account/1'))?.version).toBe(3);
        // A process that starts now loads the snapshot and the tail after it: it never saw 'old'.
        const spy = watched(store);
        const { memory, results } = processMemory();
        const run = (decide: (state: Account) => AccountEvent[], commandId?: string) =>
          handleCommand(spy.store, accountId, snapshotted, decide, {
            metadata: contractMetadata(),
            snapshots: withSnapshots,
            memory,
            ...(commandId ? { commandId } : {}),
          });
        await run(deposit(accountId, '3'));
        await run(deposit(accountId, '4'));
        expect(spy.reads).toHaveLength(1);
        const again = await run(deposit(accountId, '70'), 'old');
        expect(again).toMatchObject({ replayed: true, state: { balance: 80n, deposits: 5 } });
        expect(results).toEqual(['miss', 'hit', 'miss']);
        expect(spy.reads).toHaveLength(2);
        // Snapshots stay due every 3 events from the one loaded (version 3): one at 6, none at 7 or 8.
        await run(deposit(accountId, '5'));
        await run(deposit(accountId, '6'));
        expect((await snapshots.load(accountId, 'account/1'))?.version).toBe(6);
        await run(deposit(accountId, '7'));
        expect((await snapshots.load(accountId, 'account/1'))?.version).toBe(9);
        expect((await store.readStream(accountId)).version).toBe(9);
      } finally {
        await pool.end();
      }
    });

    it('is on in EventSourcing by default and counted; COMMAND_STREAM_MEMORY=0 reads before every command, as before', async () => {
      const readsOf = async (commandStreamMemory: number | undefined): Promise<{ reads: number; metrics: string }> => {
        const eventSourcing = new EventSourcing({
          service: 'memory-spec',
          connectionString: database.url,
          schema: testSchema.schema,
          natsUrl: 'nats://127.0.0.1:4222',
          subjectPrefix: 'memory-spec',
          migrationsDirectory: __dirname,
          projections: [],
          toIntegrationEvent: () => null,
          logger: consoleLogger('memory-spec', 'warn'),
          poolSize: 4,
          ...(commandStreamMemory === undefined ? {} : { commandStreamMemory }),
        });
        try {
          const reads = jest.spyOn(eventSourcing.store, 'readStream');
          const accountId = `Account:${randomUUID()}`;
          const context = { ...contractMetadata(), requestId: randomUUID() };
          await eventSourcing.handle(accountId, decider, open(accountId), context);
          await eventSourcing.handle(accountId, decider, deposit(accountId, '1'), context);
          await eventSourcing.handle(accountId, decider, deposit(accountId, '2'), context);
          // The process's own registry, which its /metrics serves once bootstrapped (not done here: no NATS needed).
          return { reads: reads.mock.calls.length, metrics: await eventSourcing['poolMetrics'].metrics() };
        } finally {
          await eventSourcing.onApplicationShutdown();
        }
      };
      const remembering = await readsOf(undefined);
      expect(remembering.reads).toBe(1);
      expect(remembering.metrics).toMatch(/^corridor_command_stream_memory_total\{service="memory-spec",result="hit"\} 2$/m);
      const off = await readsOf(0);
      expect(off.reads).toBe(3);
      expect(off.metrics).not.toMatch(/corridor_command_stream_memory_total/);
    });

    it('keeps each decider’s own fold: another decider on the same stream reads it', async () => {
      const accountId = `Account:${randomUUID()}`;
      const spy = watched(store);
      const { memory } = processMemory();
      const counter = { initialState: () => 0, evolve: (count: number) => count + 1 };
      await handleCommand(spy.store, accountId, decider, open(accountId), { metadata: contractMetadata(), memory });
      const counted = await handleCommand(spy.store, accountId, counter, () => [], { metadata: contractMetadata(), memory });
      expect(counted.state).toBe(1);
      expect(spy.reads).toEqual([accountId, accountId]);
    });
  });
});
