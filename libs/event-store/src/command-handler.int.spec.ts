import { createTestSchema, type TestSchema, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { handleCommand } from './command-handler';
import { contractMetadata } from './event-store.contract';
import { createPostgresEventStore } from './postgres-event-store';
import { type EventStore, WrongExpectedVersionError } from './types';

const database = useTestDatabase();

// Pins down command handling on the PostgreSQL store: decide and append, re-deciding after a
// version conflict, and commandId idempotency.

type AccountEvent =
  | { type: 'AccountOpened'; data: { accountId: string } }
  | { type: 'MoneyDeposited'; data: { accountId: string; amount: string } };
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

const open = (accountId: string) => (state: Account): AccountEvent[] =>
  state.opened ? [] : [{ type: 'AccountOpened', data: { accountId } }];
const deposit = (accountId: string, amount: string) => (state: Account): AccountEvent[] => {
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
    const first = await handleCommand(store, accountId, decider, deposit(accountId, '70'), { metadata: contractMetadata(), commandId: 'deposit-1' });
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
});
