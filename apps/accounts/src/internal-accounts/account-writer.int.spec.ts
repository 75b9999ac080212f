// The ledger's writer against real PostgreSQL and NATS, as two replicas of the accounts service
// sharing one database: each keeps accounts in memory between commands and commits queued
// commands together, yet neither may decide on a balance the other has already changed.
import { Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DomainError, newId, type RequestContext } from '@corridor/contracts';
import { consoleLogger, createPostgresEventStore, EventSourcing, EventSourcingModule } from '@corridor/event-store';
import { deleteEventsStream, requireNats, tokenContext, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { loadConfig } from '../config';
import { toIntegrationEvent } from '../integration-events';
import { AccountWriter, LEDGER_OPTIONS } from './account-writer';
import { AccountWriterMetrics } from './account-writer-metrics';
import { creditAccount } from './credit-account';
import { holdFunds } from './hold-funds';
import { type InternalAccountEvent, systemAccountId } from './internal-account';
import { internalAccountViewProjection, type InternalAccountRow } from './internal-account-view.projection';
import { openInternalAccount, openIsFinal } from './open-internal-account';

const database = useTestDatabase();
const now = () => new Date();
let subjectPrefix: string;
const replicas: INestApplicationContext[] = [];

const startReplica = async (): Promise<AccountWriter> => {
  @Module({
    imports: [
      EventSourcingModule.forRoot({
        service: 'accounts',
        connectionString: database.url,
        schema: 'accounts',
        natsUrl: loadConfig({}).natsUrl,
        subjectPrefix,
        migrationsDirectory: join(__dirname, '../migrations'),
        projections: [internalAccountViewProjection],
        toIntegrationEvent,
        logger: consoleLogger('accounts', 'warn'),
      }),
    ],
    providers: [
      { provide: LEDGER_OPTIONS, useValue: { operationWindow: loadConfig({}).operationWindow } },
      AccountWriter,
      AccountWriterMetrics,
    ],
  })
  class ReplicaModule {}
  const context = await NestFactory.createApplicationContext(ReplicaModule, { logger: ['error'] });
  await context.init();
  replicas.push(context);
  return context.get(AccountWriter);
};

const newAccount = () => ({ accountId: newId('InternalAccount'), customerId: newId('Customer') });

/** Opens the account as the accounts policies do (POST /customers, then its CustomerCreated), or opens it again. */
const openAccount = async (writer: AccountWriter, platformId: string, { accountId, customerId } = newAccount()): Promise<string> => {
  const data = {
    accountId,
    platformId,
    customerId,
    accountType: 'INTERNAL_FIAT' as const,
    currency: 'USD',
    status: 'ACTIVE' as const,
    operationId: `open:${accountId}`,
  };
  await writer.apply(
    accountId,
    tokenContext(platformId),
    (state) => openInternalAccount({ type: 'OpenInternalAccount', data, metadata: { now: now() } }, state),
    { assumeNew: true, isFinal: (state) => openIsFinal(data, state) },
  );
  return accountId;
};

const credit = (
  writer: AccountWriter,
  accountId: string,
  context: RequestContext,
  amount: bigint,
  operationId: string = randomUUID(),
): Promise<InternalAccountRow> =>
  writer.write(accountId, context, (state) =>
    creditAccount(
      {
        type: 'CreditAccount',
        data: {
          accountId,
          platformId: context.platformId,
          operationId,
          amount,
          currency: 'USD',
          cause: { kind: 'FUNDING', id: operationId },
          counterAccountId: systemAccountId('FUNDING_RAIL', 'USD'),
        },
        metadata: { now: now() },
      },
      state,
    ),
  );

const hold = (writer: AccountWriter, accountId: string, platformId: string, amount: bigint): Promise<InternalAccountRow> => {
  const id = randomUUID();
  return writer.write(accountId, tokenContext(platformId), (state) =>
    holdFunds(
      {
        type: 'HoldFunds',
        data: {
          accountId,
          platformId,
          operationId: `hold:${id}`,
          holdId: `Hold:${id}`,
          amount,
          currency: 'USD',
          cause: { kind: 'TRANSACTION', id: `Transaction:${id}` },
          counterAccountId: systemAccountId('PAYOUT_RAIL', 'USD'),
        },
        metadata: { now: now() },
      },
      state,
    ),
  );
};

const streamOf = async (accountId: string) => {
  const store = createPostgresEventStore({ connectionString: database.url, schema: 'accounts' });
  try {
    return (await store.readStream(accountId)).events;
  } finally {
    await store.close();
  }
};

const codeOf = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return 'none';
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
};

let first: AccountWriter;
let second: AccountWriter;

/** Races the replica's writer lost and retried, from its /metrics counter. */
const lostRaces = async (replica: number): Promise<number> =>
  (await replicas[replica]!.get(AccountWriterMetrics).conflicts.get()).values.find((value) => value.labels['outcome'] === 'retried')
    ?.value ?? 0;

/** Resolves once the replica's projection runner has read every event of the account so far. */
const followed = async (replica: number, accountId: string): Promise<void> => {
  const last = (await streamOf(accountId)).at(-1);
  if (last) await replicas[replica]!.get(EventSourcing).projections.waitFor(last.globalPosition);
};

const bigints = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

/**
 * What the replica asks its event store and snapshot store about the account while `run` runs (the
 * calls that name it), and how many of the statements its pool sent name it.
 */
const storeCallsWhile = async (replica: number, accountId: string, run: () => Promise<unknown>) => {
  const eventSourcing = replicas[replica]!.get(EventSourcing);
  const ports = [eventSourcing.store, eventSourcing.snapshots] as unknown as Record<string, unknown>[];
  const spies = ports.flatMap((port) =>
    Object.keys(port)
      .filter((name) => typeof port[name] === 'function')
      .map((name) => ({ name, spy: jest.spyOn(port as Record<string, (...args: unknown[]) => unknown>, name) })),
  );
  const query = jest.spyOn(eventSourcing.pool as unknown as { query: (...args: unknown[]) => unknown }, 'query');
  const naming = (args: unknown[]) => JSON.stringify(args, bigints).includes(accountId);
  try {
    await run();
    return {
      calls: spies.flatMap(({ name, spy }) => spy.mock.calls.filter(naming).map(() => name)),
      statements: query.mock.calls.filter(naming).length,
    };
  } finally {
    for (const { spy } of spies) spy.mockRestore();
    query.mockRestore();
  }
};

beforeAll(async () => {
  await requireNats();
  subjectPrefix = uniqueSubjectPrefix();
  first = await startReplica();
  second = await startReplica();
});

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await deleteEventsStream(subjectPrefix);
});

describe('AccountWriter', () => {
  it('records every event of commands committed together with the ids of its own request', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    const contexts = Array.from({ length: 40 }, () => tokenContext(platformId));
    const rows = await Promise.all(contexts.map((context) => credit(first, accountId, context, 5n)));
    // Each reply shows the balance right after its own credit, so the 40 replies are 5, 10, … 200.
    expect(rows.map((row) => BigInt(row.available)).sort((a, b) => (a < b ? -1 : 1))).toEqual(
      contexts.map((_, index) => BigInt(5 * (index + 1))),
    );
    const credits = (await streamOf(accountId)).filter((event) => event.type === 'AccountCredited');
    expect(credits.map((event) => [event.metadata.requestId, event.metadata.correlationId]).sort()).toEqual(
      contexts.map((context) => [context.requestId, context.correlationId]).sort(),
    );
  });

  it('lets a replica spend funds another replica credited after it last wrote the account', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 10n);
    await credit(second, accountId, tokenContext(platformId), 90n);
    // The first replica remembers a balance of 10: a hold of 60 would be refused on that memory.
    const held = await hold(first, accountId, platformId, 60n);
    expect([held.available, held.held]).toEqual(['40', '60']);
    // And a hold it can afford on its memory still appends at the stream's true version.
    await credit(second, accountId, tokenContext(platformId), 1n);
    const again = await hold(first, accountId, platformId, 30n);
    expect([again.available, again.held]).toEqual(['11', '90']);
    expect((await streamOf(accountId)).map((event) => event.streamPosition)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('counts each race it lost to another replica for /metrics, and only those', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 10n);
    await credit(second, accountId, tokenContext(platformId), 10n);
    await followed(0, accountId);
    const before = (await lostRaces(0)) + (await lostRaces(1));
    // Its own memory is current: no race.
    await hold(first, accountId, platformId, 1n);
    expect((await lostRaces(0)) + (await lostRaces(1))).toBe(before);
    // Both replicas write the account at once, each on the version it remembers: one append is refused and retried.
    const [one, other] = await Promise.all([
      credit(first, accountId, tokenContext(platformId), 1n),
      credit(second, accountId, tokenContext(platformId), 1n),
    ]);
    expect([one.available, other.available].sort()).toEqual(['20', '21']);
    expect((await lostRaces(0)) + (await lostRaces(1))).toBeGreaterThanOrEqual(before + 1);
  });

  it("decides on the other replica's write once its projection runner has read it, without losing a race", async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 10n);
    const before = await lostRaces(0);
    await credit(second, accountId, tokenContext(platformId), 90n);
    await followed(0, accountId);
    // The first replica remembered version 2 and a balance of 10, on which a hold of 5 would be
    // decided and its append refused; it now knows version 3 and decides on 100 at once.
    const held = await hold(first, accountId, platformId, 5n);
    expect([held.available, held.held]).toEqual(['95', '5']);
    expect(await lostRaces(0)).toBe(before);
    expect((await streamOf(accountId)).map((event) => event.streamPosition)).toEqual([1, 2, 3, 4]);
  });

  it('never lets two replicas together hold more than the balance', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 30n);
    await hold(second, accountId, platformId, 1n);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, index) => codeOf(hold(index % 2 === 0 ? first : second, accountId, platformId, 1n))),
    );
    expect(results.filter((code) => code === 'none')).toHaveLength(29);
    expect(new Set(results.filter((code) => code !== 'none'))).toEqual(new Set(['INSUFFICIENT_FUNDS']));
    let available = 0n;
    for (const event of (await streamOf(accountId)) as unknown as InternalAccountEvent[]) {
      if (event.type === 'AccountCredited') available += BigInt(event.data.amount);
      if (event.type === 'FundsHeld') available -= BigInt(event.data.amount);
      expect(available >= 0n).toBe(true);
    }
    expect(available).toBe(0n);
  });

  it('keeps a hot account shared by two replicas answering: lost races are retried, never a raw conflict or a 503', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 1_000_000n);
    // 32 callers per replica, each holding again as soon as its last hold answers, for 3 s: both
    // replicas append to the account all the time, so each loses races to the other again and again.
    const until = Date.now() + 3_000;
    const failures: string[] = [];
    let held = 0;
    await Promise.all(
      Array.from({ length: 64 }, async (_, caller) => {
        while (Date.now() < until) {
          const code = await hold(caller % 2 === 0 ? first : second, accountId, platformId, 1n).then(
            () => 'none',
            (error: unknown) => (error instanceof DomainError ? error.code : `${(error as Error).name}: ${(error as Error).message}`),
          );
          if (code === 'none') held += 1;
          else failures.push(code);
        }
      }),
    );
    expect(failures).toEqual([]);
    const holds = ((await streamOf(accountId)) as unknown as InternalAccountEvent[]).filter((event) => event.type === 'FundsHeld');
    expect(holds).toHaveLength(held);
  }, 30_000);

  it('answers a read right after a write with the new balance', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    const written = await credit(first, accountId, tokenContext(platformId), 25n);
    const read = await first.read(accountId, platformId);
    expect([written.available, read.available]).toEqual(['25', '25']);
    expect(read).toEqual(written);
    expect(await codeOf(second.read(accountId, newId('Platform')))).toBe('REFERENCE_NOT_FOUND');
  });

  it('credits once when a retry reaches a replica that has not seen the first attempt', async () => {
    const platformId = newId('Platform');
    const accountId = await openAccount(first, platformId);
    await credit(first, accountId, tokenContext(platformId), 1n);
    await credit(second, accountId, tokenContext(platformId), 50n, 'credit-once');
    const retried = await credit(first, accountId, tokenContext(platformId), 50n, 'credit-once');
    expect(retried.available).toBe('51');
    expect((await streamOf(accountId)).filter((event) => event.type === 'AccountCredited')).toHaveLength(2);
  });

  it('opens again without asking the store an account it remembers opened by that operation; other repeats read the tail', async () => {
    const platformId = newId('Platform');
    const ids = newAccount();
    const accountId = await openAccount(first, platformId, ids);
    // POST /customers opened it; its CustomerCreated opens it again on the same replica: final, nothing to read.
    expect(await storeCallsWhile(0, accountId, () => openAccount(first, platformId, ids))).toEqual({ calls: [], statements: 0 });
    // A repeated credit decides nothing too, but it is not submitted as final: like every such
    // command (a refusal, which the other replica's credit may turn into an allowed hold), it reads the tail.
    await credit(first, accountId, tokenContext(platformId), 5n, 'credit-twice');
    const repeat = await storeCallsWhile(0, accountId, () => credit(first, accountId, tokenContext(platformId), 5n, 'credit-twice'));
    expect(repeat.calls).toEqual(['readStream']);
    expect(repeat.statements).toBeGreaterThanOrEqual(1);
    // The other replica does not remember the account (decision 0056): its open is not known to be final, so it reads.
    expect((await storeCallsWhile(1, accountId, () => openAccount(second, platformId, ids))).calls).toContain('readStream');
    expect((await streamOf(accountId)).map((event) => event.type)).toEqual(['InternalAccountOpened', 'AccountCredited']);
  });
});
