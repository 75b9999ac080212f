import { randomUUID } from 'node:crypto';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { Client } from 'pg';
import { createTestSchema, requireNats, testUrls, uniqueSubjectPrefix, type TestSchema, until, useTestDatabase } from '@corridor/testing';
import { contractMetadata } from './event-store.contract';
import { countOpenDeadLetters, listDeadLetters, resolveDeadLetters } from './outbox-dead-letters';
import { OutboxRelay, ensureEventsStream } from './outbox-relay';
import { createPostgresEventStore } from './postgres-event-store';
import type { EventStore, RecordedEvent } from './types';

// Pins down the outbox relay: events reach JetStream in store order with msgID = eventId, private
// events stay home, and a restart (even one that lost its last checkpoint) loses and duplicates nothing.

describe('OutboxRelay', () => {
  const database = useTestDatabase();
  const prefix = uniqueSubjectPrefix();
  const streamName = `${prefix.toUpperCase()}_EVENTS`;
  let testSchema: TestSchema;
  let store: EventStore;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let admin: Client;
  const relays: OutboxRelay[] = [];

  /** While set, ItemStuck events go to a subject no stream takes, so JetStream refuses their publish. */
  let stuckUnroutable = false;
  /** While set, mapping an ItemPoisoned event throws, as a mapper bug would. */
  let poisoned = false;
  const relayErrors: unknown[] = [];
  const toIntegrationEvent = (event: RecordedEvent) => {
    if (event.type === 'ItemPoisoned' && poisoned) throw new Error('the mapper cannot read this event');
    return mapEvent(event);
  };
  const mapEvent = (event: RecordedEvent) =>
    event.type === 'SecretNoted'
      ? null
      : {
          subject:
            event.type === 'ItemStuck' && stuckUnroutable ? `${prefix}.nowhere.${event.type}` : `${prefix}.events.test.Item.${event.type}`,
          payload: { id: event.streamId, data: event.data },
        };

  const newRelay = (batchSize = 3, pollIntervalMs = 20) => {
    const relay = new OutboxRelay({
      store,
      connectionString: database.url,
      schema: testSchema.schema,
      name: 'test-outbox',
      jetstream: nc.jetstream(),
      toIntegrationEvent,
      batchSize,
      pollIntervalMs,
      maxAttempts: 3,
      logger: {
        info: () => undefined,
        warn: () => undefined,
        error: (details: Record<string, unknown>) => void relayErrors.push(details['err']),
      },
    });
    relays.push(relay);
    return relay;
  };

  const append = async (types: string[]) => {
    const streamId = `Item:${randomUUID()}`;
    const { events } = await store.appendToStream(
      streamId,
      types.map((type, index) => ({ type, data: { index } })),
      { expectedVersion: 0, metadata: contractMetadata() },
    );
    return events;
  };

  const published = async () => {
    const info = await jsm.streams.info(streamName);
    const messages = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq += 1) {
      const message = await jsm.streams.getMessage(streamName, { seq });
      messages.push({ msgId: message.header?.get('Nats-Msg-Id'), subject: message.subject, payload: message.json() });
    }
    return messages;
  };

  beforeAll(async () => {
    await requireNats();
    testSchema = await createTestSchema(database.url);
    store = createPostgresEventStore({ connectionString: database.url, schema: testSchema.schema, poolSize: 4 });
    nc = await connect({ servers: testUrls.nats(), name: `${prefix}-outbox-test` });
    jsm = await nc.jetstreamManager();
    await ensureEventsStream(nc, { name: streamName, subjects: [`${prefix}.events.>`], maxAgeDays: 1 });
    // Idempotent when every service calls it at startup.
    await ensureEventsStream(nc, { name: streamName, subjects: [`${prefix}.events.>`], maxAgeDays: 1 });
    admin = new Client({ connectionString: database.url });
    await admin.connect();
  });

  /** Advisory locks held in this file's database: the relays' leadership lock. */
  const advisoryLocksHeld = async (): Promise<number> => {
    const sql =
      "SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND database = " +
      '(SELECT oid FROM pg_database WHERE datname = current_database())';
    return ((await admin.query(sql)).rows[0] as { held: number }).held;
  };

  afterAll(async () => {
    for (const relay of relays) await relay.stop();
    await jsm?.streams.delete(streamName).catch(() => undefined);
    await nc?.close();
    await store?.close();
    await admin?.end();
    await testSchema?.drop();
  });

  it('publishes integration events in store order with msgID = eventId and skips private ones', async () => {
    const first = await append(['ItemCreated', 'SecretNoted', 'ItemPriced']);
    const second = await append(['ItemCreated', 'ItemPriced', 'ItemShipped']);
    const relay = newRelay();
    await relay.start();
    await relay.drain({ until: second[2]!.globalPosition });
    const expected = [...first, ...second].filter((event) => event.type !== 'SecretNoted');
    expect(await published()).toEqual(
      expected.map((event) => ({
        msgId: event.eventId,
        subject: `${prefix}.events.test.Item.${event.type}`,
        payload: { id: event.streamId, data: event.data },
      })),
    );
    const stored = await admin.query(`SELECT position FROM ${testSchema.schema}.outbox_checkpoints WHERE name = 'test-outbox'`);
    expect(BigInt(stored.rows[0].position)).toBe(second[2]!.globalPosition);
    await relay.stop();
  });

  it("carries the appending request's ids in the message headers, with the event itself as the cause", async () => {
    const events = await append(['ItemCreated']);
    const relay = newRelay();
    await relay.start();
    await relay.drain({ until: events[0]!.globalPosition });
    await relay.stop();
    const info = await jsm.streams.info(streamName);
    const message = await jsm.streams.getMessage(streamName, { seq: info.state.last_seq });
    const { metadata } = events[0]!;
    expect({
      request: message.header.get('Corridor-Request-Id'),
      correlation: message.header.get('Corridor-Correlation-Id'),
      causation: message.header.get('Corridor-Causation-Id'),
      platform: message.header.get('Corridor-Platform-Id'),
    }).toEqual({
      request: metadata.requestId,
      correlation: metadata.correlationId,
      causation: events[0]!.eventId,
      platform: metadata.platformId,
    });
  });

  it('resumes after a restart without loss, and JetStream drops what a lost checkpoint republishes', async () => {
    const before = await published();
    const whileDown = await append(['ItemCreated', 'ItemPriced']);
    // A crash after publishing but before saving the checkpoint looks like a checkpoint set back.
    await admin.query(`UPDATE ${testSchema.schema}.outbox_checkpoints SET position = 0 WHERE name = 'test-outbox'`);

    const relay = newRelay();
    await relay.start();
    const live = await append(['ItemShipped']);
    relay.nudge();
    await relay.drain({ until: live[0]!.globalPosition });
    const after = await published();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((message) => message.msgId)).toEqual([...whileDown, ...live].map((event) => event.eventId));
    expect(new Set(after.map((message) => message.msgId)).size).toBe(after.length);
  });

  it('keeps a second relay of the same name on standby until the leader stops, then hands over', async () => {
    const [running] = relays.slice(-1);
    const standby = newRelay();
    await standby.start();
    const events = await append(['ItemCreated', 'ItemPriced', 'ItemShipped', 'ItemPriced']);
    // The standby cannot take the leadership lock, so it never reaches the head on its own.
    await expect(standby.drain({ until: events[3]!.globalPosition, timeoutMs: 200 })).rejects.toThrow(/did not reach/);
    await running!.drain({ until: events[3]!.globalPosition });
    await running!.stop();
    // Once the leader is gone the standby takes over from the shared checkpoint.
    const more = await append(['ItemCreated']);
    await standby.drain({ until: more[0]!.globalPosition });
    const all = await published();
    const tail = all.slice(-5).map((message) => message.msgId);
    expect(tail).toEqual([...events, ...more].map((event) => event.eventId));
    expect(new Set(all.map((message) => message.msgId)).size).toBe(all.length);
  });

  it('does not wake a standby on every append: it asks for the lock once per poll interval (20 ms here), not once per nudge', async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    const leader = newRelay();
    await leader.start();
    const standby = newRelay();
    await standby.start();
    const attempts = async (): Promise<number> => {
      const metric = standby.metrics.getSingleMetric('corridor_outbox_leadership_attempts_total');
      if (!metric) throw new Error('The relay registers no corridor_outbox_leadership_attempts_total.');
      const { values } = await metric.get();
      return values.reduce((sum, value) => sum + value.value, 0);
    };
    await new Promise((resolve) => setTimeout(resolve, 50));
    const before = await attempts();
    const startedAt = Date.now();
    // Every append of the service nudges its relay; 200 appends' worth within about 200 ms.
    for (let nudge = 0; nudge < 200; nudge += 1) {
      standby.nudge();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const asked = (await attempts()) - before;
    const intervals = (Date.now() - startedAt) / 20;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(Math.ceil(intervals) + 2);
    expect(leader.status().leader).toBe(true);
    expect(standby.status().leader).toBe(false);
  });

  it("publishes an event appended on a standby's replica at once: the standby's nudge wakes the leader, no poll waited for", async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    // A stopped leader has let go of its lock by the time stop() resolves, so a relay started now leads at once.
    expect(await advisoryLocksHeld()).toBe(0);
    // Polls 60 s apart: only a wake makes the leader publish within the test.
    const leader = newRelay(3, 60_000);
    await leader.start();
    // start() returns before the relay's first bid for the lock: the second starts once the first leads.
    await until(
      'the first relay to lead',
      () => leader.status().leader,
      (leads) => leads,
    );
    const standby = newRelay(3, 60_000);
    await standby.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect([leader.status().leader, standby.status().leader]).toEqual([true, false]);
    // Let the leader's first batch end, so it sleeps its poll interval.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const eventId = (await append(['ItemCreated']))[0]?.eventId;
    // The append was made on the standby's replica, which nudges its own relay, not the leader.
    standby.nudge();
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && !(await published()).some((message) => message.msgId === eventId))
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(eventId).toBeDefined();
    expect((await published()).map((message) => message.msgId)).toContain(eventId);
  });

  it('keeps asking on one standby session without adding a listener to it per ask', async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    await newRelay().start();
    await newRelay().start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Each session gets the relay's error listener once, when it connects; one per ask grew without
    // end (Node warned at the 11th: MaxListenersExceededWarning on a pg Client). The store's pool
    // adds and removes a listener of its own on every checkout, so the count is of those attached.
    const on = jest.spyOn(Client.prototype, 'on');
    try {
      // 25 poll intervals: the standby asks about 25 times on the same session.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const sessions = new Set(on.mock.contexts as Client[]);
      const most = Math.max(0, ...[...sessions].map((session) => session.listenerCount('error')));
      expect(sessions.size).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(3);
    } finally {
      on.mockRestore();
    }
  });

  it('after a failed publish among several sent at once, keeps each stream in order and publishes everything once', async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    const before = await published();
    const [a, b, c] = [`Item:${randomUUID()}`, `Item:${randomUUID()}`, `Item:${randomUUID()}`];
    const one = async (streamId: string, type: string) =>
      (await store.appendToStream(streamId, [{ type, data: { type } }], { expectedVersion: 'any', metadata: contractMetadata() }))
        .events[0]!;
    stuckUnroutable = true;
    relayErrors.length = 0;
    // a1, b1 and c1 are of three streams and go out together; b2 must wait for b1.
    const a1 = await one(a, 'ItemCreated');
    const b1 = await one(b, 'ItemStuck');
    const c1 = await one(c, 'ItemCreated');
    const b2 = await one(b, 'ItemPriced');
    const relay = newRelay(10);
    await relay.start();
    for (let attempt = 0; relayErrors.length === 0 && attempt < 500; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(relayErrors.length).toBeGreaterThan(0);

    const stored = async () =>
      BigInt(
        (await admin.query(`SELECT position FROM ${testSchema.schema}.outbox_checkpoints WHERE name = 'test-outbox'`)).rows[0].position,
      );
    // The checkpoint stops before the refused event, and nothing later of its stream got out.
    expect(await stored()).toBe(a1.globalPosition);
    const whileStuck = (await published()).slice(before.length).map((message) => message.msgId);
    expect(whileStuck).toContain(a1.eventId);
    expect(whileStuck).not.toContain(b1.eventId);
    expect(whileStuck).not.toContain(b2.eventId);

    stuckUnroutable = false;
    await relay.drain({ until: b2.globalPosition });
    const after = (await published()).slice(before.length).map((message) => message.msgId);
    // Everything once (c1, sent again after the failure, was dropped as a duplicate), b1 before b2.
    expect([...after].sort()).toEqual([a1, b1, c1, b2].map((event) => event.eventId).sort());
    expect(after.indexOf(b1.eventId)).toBeLessThan(after.indexOf(b2.eventId));
    expect(await stored()).toBe(b2.globalPosition);
  });

  it('sets aside an event that fails on its own after its tries, lets the events after it flow, and publishes it on retry', async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    const before = await published();
    poisoned = true;
    const [mapperBug] = await append(['ItemPoisoned', 'ItemCreated']);
    // Over the server's max_payload (1 MiB by default): JetStream can never take it.
    const { events: tooLarge } = await store.appendToStream(
      `Item:${randomUUID()}`,
      [{ type: 'ItemCreated', data: { blob: 'x'.repeat(1_200_000) } }],
      {
        expectedVersion: 0,
        metadata: contractMetadata(),
      },
    );
    const good = await append(['ItemCreated', 'ItemPriced']);
    const relay = newRelay(10);
    await relay.start();
    const publishedIds = async () => (await published()).slice(before.length).map((message) => message.msgId);
    for (let attempt = 0; !(await publishedIds()).includes(good[1]!.eventId) && attempt < 120; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));

    const flowed = await publishedIds();
    expect(flowed).toEqual(expect.arrayContaining(good.map((event) => event.eventId)));
    expect(flowed).not.toContain(mapperBug!.eventId);
    expect(flowed).not.toContain(tooLarge[0]!.eventId);
    const dead = await listDeadLetters(admin, testSchema.schema);
    expect(dead.map(({ eventId, state, attempts }) => ({ eventId, state, attempts }))).toEqual([
      { eventId: mapperBug!.eventId, state: 'dead', attempts: 3 },
      { eventId: tooLarge[0]!.eventId, state: 'dead', attempts: 3 },
    ]);
    expect(dead[0]!.error).toContain('the mapper cannot read this event');
    expect(await countOpenDeadLetters(admin, testSchema.schema)).toBe(2);

    // The mapper fixed, an operator retries the first and skips the one that can never fit.
    poisoned = false;
    expect(await resolveDeadLetters(admin, testSchema.schema, 'test-outbox', mapperBug!.globalPosition.toString(), 'retry')).toBe(1);
    expect(await resolveDeadLetters(admin, testSchema.schema, 'test-outbox', tooLarge[0]!.globalPosition.toString(), 'skip')).toBe(1);
    for (let attempt = 0; !(await publishedIds()).includes(mapperBug!.eventId) && attempt < 120; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await publishedIds()).toContain(mapperBug!.eventId);
    expect((await listDeadLetters(admin, testSchema.schema, { all: true })).map(({ eventId, state }) => ({ eventId, state }))).toEqual([
      { eventId: mapperBug!.eventId, state: 'retried' },
      { eventId: tooLarge[0]!.eventId, state: 'skipped' },
    ]);
    expect(await countOpenDeadLetters(admin, testSchema.schema)).toBe(0);
  });
});
