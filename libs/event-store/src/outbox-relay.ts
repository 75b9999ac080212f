import { eventSubject } from '@corridor/contracts';
import { contextCarrier, inSpan, SpanKind, traceParentFrom } from '@corridor/telemetry';
import type { Client } from 'pg';
import { type JetStreamClient, type NatsConnection, RetentionPolicy, StorageType, headers as natsHeaders, nanos } from 'nats';
import { checkpointDdl, connectClient, ddlLockKey } from './postgres-schema';
import { advisoryKey, assertSchemaName } from './sql-names';
import { Counter, Gauge, Registry } from 'prom-client';
import { type Logger, createMutex, createWakeup } from './logger';
import {
  DEFAULT_OUTBOX_MAX_ATTEMPTS,
  deadLetterDdl,
  deadLettersToRetry,
  isEventFailure,
  markRetried,
  recordDeadLetter,
} from './outbox-dead-letters';
import type { EventStore, RecordedEvent } from './types';

export type IntegrationEvent = { subject: string; payload: unknown };

export type OutboxRelayOptions = {
  store: EventStore;
  connectionString: string;
  schema: string;
  /** Checkpoint name; also the leadership lock, so one relay per name publishes at a time. */
  name: string;
  jetstream: JetStreamClient;
  /** 0..1 integration event per stored event; null keeps the event private to the service. */
  toIntegrationEvent: (event: RecordedEvent) => IntegrationEvent | null;
  batchSize?: number;
  pollIntervalMs?: number;
  publishTimeoutMs?: number;
  /** Tries of one event that fails on its own (see isEventFailure) before it becomes a dead letter (OUTBOX_MAX_ATTEMPTS, default 5). */
  maxAttempts?: number;
  /** Required: a relay that cannot say why it stopped publishing is a silent outage of every consumer. */
  logger: Logger;
};

/** What /health and /metrics show of the relay. */
export type OutboxStatus = {
  name: string;
  leader: boolean;
  position: string;
  failures: number;
  lastError?: { message: string; at: string; event?: { position: string; streamId: string; type: string } };
};

const DEFAULT_BATCH_SIZE = 200;
const DEFAULT_POLL_INTERVAL_MS = 200;
const DEFAULT_PUBLISH_TIMEOUT_MS = 5_000;
const MAX_FAILURE_BACKOFF_MS = 5_000;
const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** The closest two wakes of the leader by one standby may be (see wakeLeader). */
const WAKE_SPACING_MS = 50;
/** How often the leader looks for dead letters an operator asked to retry. */
const RETRY_CHECK_INTERVAL_MS = 1_000;
const RETRIES_PER_CHECK = 20;
const encoder = new TextEncoder();

/**
 * Publishes the store's events, in global order, to JetStream. Delivery is at least once: the
 * checkpoint advances only after JetStream acknowledged, and a message republished after a crash
 * carries the same msgID (the eventId), so JetStream drops it within the stream's duplicate window.
 * Replicas of a service compete for a session advisory lock; only the holder publishes.
 */
export class OutboxRelay {
  private readonly schema: string;
  private readonly exclusive = createMutex();
  private readonly wakeup = createWakeup();
  private readonly logger: Logger;
  private leader: Client | undefined;
  /** A replica that is not the leader keeps its session and asks for the lock again on it. */
  private candidate: Client | undefined;
  private position = 0n;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private consecutiveFailures = 0;
  private lastError: OutboxStatus['lastError'];
  readonly metrics = new Registry();
  private readonly failuresTotal: Counter<'relay'>;
  private readonly publishedTotal: Counter<'relay'>;
  private readonly deadLetteredTotal: Counter<'relay'>;
  private readonly leadershipAttempts: Counter<'relay'>;
  /** Failed tries per event id, only for events that failed on their own; cleared once one is published or set aside. */
  private readonly attempts = new Map<string, number>();
  private nextRetryCheckAt = 0;
  /**
   * The channel on which a standby wakes the leader (LISTEN / pg_notify): the schema is a checked
   * identifier, and the name is cut where PostgreSQL cuts identifiers (63 bytes) so both sides agree.
   */
  private readonly wakeChannel: string;
  private wakeScheduled = false;
  private lastWakeAt = 0;

  constructor(private readonly options: OutboxRelayOptions) {
    this.schema = assertSchemaName(options.schema);
    this.wakeChannel = `outbox_wake_${this.schema}`.slice(0, 63);
    this.logger = options.logger;
    // Arrow functions read the relay; each gauge's collect() has the gauge as `this`.
    const leading = () => this.leader !== undefined;
    const checkpoint = () => this.position;
    this.failuresTotal = new Counter({
      name: 'corridor_outbox_failures_total',
      help: 'Outbox batches that failed (publish or checkpoint).',
      labelNames: ['relay'],
      registers: [this.metrics],
    });
    this.publishedTotal = new Counter({
      name: 'corridor_outbox_published_total',
      help: 'Integration events JetStream acknowledged.',
      labelNames: ['relay'],
      registers: [this.metrics],
    });
    this.deadLetteredTotal = new Counter({
      name: 'corridor_outbox_dead_lettered_total',
      help: 'Integration events set aside as dead letters after their tries (npm run outbox:dead-letters lists them).',
      labelNames: ['relay'],
      registers: [this.metrics],
    });
    this.leadershipAttempts = new Counter({
      name: 'corridor_outbox_leadership_attempts_total',
      help: 'Times this replica asked for the relay lock it did not hold (a standby asks once per poll interval).',
      labelNames: ['relay'],
      registers: [this.metrics],
    });
    new Gauge({
      name: 'corridor_outbox_lag_events',
      help: "Events in the store after the relay's checkpoint (only the leader replica publishes; others report 0).",
      labelNames: ['relay'],
      registers: [this.metrics],
      async collect() {
        if (!leading()) return void this.set({ relay: options.name }, 0);
        // The head needs PostgreSQL; when it does not answer, the lag is unknown and left out: the
        // relay's own loop logs the outage and /health shows the outbox failing.
        const head = await options.store.headPosition().catch(() => undefined);
        if (head !== undefined) this.set({ relay: options.name }, Number(head > checkpoint() ? head - checkpoint() : 0n));
      },
    });
    new Gauge({
      name: 'corridor_outbox_leader',
      help: '1 on the replica that holds the relay lock and publishes.',
      labelNames: ['relay'],
      registers: [this.metrics],
      collect() {
        this.set({ relay: options.name }, leading() ? 1 : 0);
      },
    });
  }

  status(): OutboxStatus {
    return {
      name: this.options.name,
      leader: this.leader !== undefined,
      position: this.position.toString(),
      failures: this.consecutiveFailures,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  async start(): Promise<void> {
    if (this.running) return;
    const client = await connectClient(this.options.connectionString);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [ddlLockKey(this.schema)]);
      await client.query(checkpointDdl(this.schema));
      await client.query(deadLetterDdl(this.schema));
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeup.nudge();
    await this.loopDone;
    this.loopDone = undefined;
    await this.exclusive(() => this.resign());
    const candidate = this.candidate;
    this.candidate = undefined;
    // Stopping: ending a session that already broke has nothing left to release (its advisory
    // lock went with it), and a failed end changes nothing a caller could act on.
    await candidate?.end().catch(() => undefined);
  }

  /**
   * An append asks the leader to publish at once. On a standby replica it wakes the leader on the
   * other replica instead (pg_notify on the standby's own session; the leader LISTENs on its), so an
   * event appended there waits for no poll; the standby itself is not woken, since it would only
   * ask for a lock the leader holds. It asks once per poll interval, which is also how soon it
   * takes over from a leader that stopped.
   */
  nudge(): void {
    if (this.leader) this.wakeup.nudge();
    else this.wakeLeader();
  }

  /**
   * At most one wake per WAKE_SPACING_MS: the first nudge after a quiet spell wakes the leader at
   * once, the nudges within the spacing after it make one more wake at its end. An idle system's
   * event waits for no poll; a busy one sends the leader (awake for its own appends anyway) a few
   * wakes a second (at most 20), not one per append.
   */
  private wakeLeader(): void {
    if (!this.running || this.wakeScheduled) return;
    const wait = this.lastWakeAt + WAKE_SPACING_MS - Date.now();
    if (wait <= 0) return this.sendWake();
    this.wakeScheduled = true;
    setTimeout(() => {
      this.wakeScheduled = false;
      this.sendWake();
    }, wait).unref();
  }

  private sendWake(): void {
    const session = this.candidate;
    if (!session || !this.running) return;
    this.lastWakeAt = Date.now();
    void session.query('SELECT pg_notify($1, $2)', [this.wakeChannel, this.options.name]).catch((error: unknown) => {
      if (this.running)
        this.logger.warn({ err: error, relay: this.options.name }, 'Could not wake the leader relay; it publishes at its next poll.');
    });
  }

  /**
   * Publishes everything up to `until` (default: the store's current head) — for tests and for a
   * graceful shutdown. Rejects if another replica holds the leadership or the timeout passes.
   */
  async drain(options: { until?: bigint; timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    const target = options.until ?? (await this.options.store.headPosition());
    const deadline = Date.now() + timeoutMs;
    while (this.position < target || !this.leader) {
      if (Date.now() > deadline) throw new Error(`Outbox relay ${this.options.name} did not reach ${target} within ${timeoutMs} ms.`);
      const read = await this.exclusive(() => this.runBatch());
      if (read === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  private async loop(): Promise<void> {
    let failures = 0;
    const pollIntervalMs = this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    while (this.running) {
      let read = 0;
      try {
        read = await this.exclusive(() => this.runBatch());
        await this.exclusive(() => this.retryDeadLetters());
        failures = 0;
        this.consecutiveFailures = 0;
      } catch (error) {
        failures += 1;
        this.consecutiveFailures = failures;
        this.failuresTotal.inc({ relay: this.options.name });
        const failed = (error as { event?: RecordedEvent } | null)?.event;
        this.lastError = {
          message: error instanceof Error ? error.message : String(error),
          at: new Date().toISOString(),
          ...(failed ? { event: { position: failed.globalPosition.toString(), streamId: failed.streamId, type: failed.type } } : {}),
        };
        this.logger.error(
          {
            err: error,
            relay: this.options.name,
            failures,
            checkpoint: this.position.toString(),
            ...(failed
              ? { position: failed.globalPosition.toString(), streamId: failed.streamId, eventType: failed.type, eventId: failed.eventId }
              : {}),
          },
          'Outbox batch failed; retrying from the checkpoint.',
        );
        await this.exclusive(() => this.resign());
        await this.wakeup.sleep(Math.min(MAX_FAILURE_BACKOFF_MS, pollIntervalMs * 2 ** failures));
        continue;
      }
      // A short batch reached the head the store shows now: reading again at once would only
      // find nothing (an append since then nudges the wakeup, so its sleep ends at once).
      if (read < (this.options.batchSize ?? DEFAULT_BATCH_SIZE)) await this.wakeup.sleep(pollIntervalMs);
    }
  }

  /**
   * Returns how many events it read; 0 also when another replica holds the lock.
   *
   * Publishes go out in waves: a wave is the longest run of the batch's next events with no two of
   * one stream; all of its publishes are sent at once (one socket write, acks read together) and
   * the next wave starts only once every one of them was acknowledged. Hence, when a publish fails:
   * - at least once: the checkpoint moves only to the end of the acknowledged prefix of the batch
   *   (in global order); everything after it is published again, and JetStream drops what it
   *   already stored by msgID (the eventId) within its duplicate window;
   * - per-stream order: an event is sent only after every earlier event of its stream was
   *   acknowledged (they are in earlier waves), so a failed event is never overtaken by a later
   *   event of its own stream. Only events of other streams in the same wave may be stored ahead
   *   of it, which consumers already tolerate: they order per resource by streamPosition.
   * Without failures JetStream stores every message in global order (one connection, sent in order).
   */
  private async runBatch(): Promise<number> {
    const leader = this.leader ?? (await this.tryLead());
    if (!leader) return 0;
    const events = await this.options.store.readAll({ after: this.position, limit: this.options.batchSize ?? DEFAULT_BATCH_SIZE });
    let published = this.position;
    try {
      for (let start = 0; start < events.length;) {
        const wave = waveFrom(events, start);
        const outcomes = await Promise.allSettled(wave.map((event) => this.publish(event)));
        const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
        const acknowledged = failed === -1 ? wave.length : failed;
        if (acknowledged > 0) published = wave[acknowledged - 1]!.globalPosition;
        if (this.attempts.size > 0) for (const event of wave.slice(0, acknowledged)) this.attempts.delete(event.eventId);
        if (acknowledged > 0) this.publishedTotal.inc({ relay: this.options.name }, acknowledged);
        if (failed === -1) {
          start += wave.length;
          continue;
        }
        const reason = (outcomes[failed] as PromiseRejectedResult).reason;
        if (!(await this.setAside(leader, wave[failed]!, reason))) throw withEvent(reason, wave[failed]!);
        // Set aside: the checkpoint passes it. The events after it in this wave were sent as well;
        // the next wave sends them again and JetStream drops the repeats by msgID.
        published = wave[failed]!.globalPosition;
        start += failed + 1;
      }
    } finally {
      // Saving what was acknowledged before a failure keeps the republished tail short.
      if (published > this.position) {
        await leader.query(`UPDATE ${this.schema}.outbox_checkpoints SET position = $1, updated_at = now() WHERE name = $2`, [
          published.toString(),
          this.options.name,
        ]);
        this.position = published;
      }
    }
    return events.length;
  }

  /**
   * Counts a failure of this event's own (its mapping threw, it is too large, JetStream refused it)
   * and, at the last try, sets it aside so the events after it are not held back forever. Returns
   * whether it was set aside. A bus outage fails every event alike and never counts.
   */
  private async setAside(leader: Client, event: RecordedEvent, reason: unknown): Promise<boolean> {
    if (!isEventFailure(reason)) return false;
    const attempts = (this.attempts.get(event.eventId) ?? 0) + 1;
    const maxAttempts = this.options.maxAttempts ?? DEFAULT_OUTBOX_MAX_ATTEMPTS;
    if (attempts < maxAttempts) {
      this.attempts.set(event.eventId, attempts);
      return false;
    }
    this.attempts.delete(event.eventId);
    await recordDeadLetter(leader, this.schema, this.options.name, event, reason, attempts);
    this.deadLetteredTotal.inc({ relay: this.options.name });
    this.logger.error(
      {
        err: reason,
        relay: this.options.name,
        attempts,
        position: event.globalPosition.toString(),
        streamId: event.streamId,
        eventType: event.type,
        eventId: event.eventId,
      },
      'Outbox event set aside as a dead letter after its tries; later events flow on. List, retry or skip it with npm run ' +
        'outbox:dead-letters.',
    );
    return true;
  }

  /** Publishes again the dead letters an operator marked for retry; one that fails again goes back to dead with its new cause. */
  private async retryDeadLetters(): Promise<void> {
    const leader = this.leader;
    if (!leader || Date.now() < this.nextRetryCheckAt) return;
    this.nextRetryCheckAt = Date.now() + RETRY_CHECK_INTERVAL_MS;
    for (const position of await deadLettersToRetry(leader, this.schema, this.options.name, RETRIES_PER_CHECK)) {
      const [event] = await this.options.store.readAll({ after: position - 1n, limit: 1 });
      const where = { relay: this.options.name, position: position.toString() };
      if (!event || event.globalPosition !== position) {
        this.logger.error(where, 'A dead letter marked for retry has no event at its position; left as it is.');
        continue;
      }
      try {
        await this.publish(event);
      } catch (error) {
        if (!isEventFailure(error)) {
          // The bus, not the event: it stays marked for retry and the next check tries again.
          this.logger.warn({ err: error, ...where }, 'Retrying a dead letter failed on the bus; it stays marked for retry.');
          return;
        }
        await recordDeadLetter(leader, this.schema, this.options.name, event, error, 1);
        this.logger.error(
          { err: error, ...where, eventType: event.type, eventId: event.eventId },
          'Retrying a dead letter failed; it is dead again with this cause.',
        );
        continue;
      }
      await markRetried(leader, this.schema, this.options.name, position);
      this.publishedTotal.inc({ relay: this.options.name });
      this.logger.info({ ...where, eventType: event.type, eventId: event.eventId }, 'Dead letter published on retry.');
    }
  }

  private async publish(event: RecordedEvent): Promise<void> {
    const integration = this.options.toIntegrationEvent(event);
    if (!integration) return;
    // The message continues the story of the request that appended the event: its trace (the
    // event's stored traceparent is the parent of this span) and its ids, with the event itself as
    // the cause of whatever a consumer does with it.
    const { metadata } = event;
    const parent = traceParentFrom((name) =>
      name === 'traceparent' ? metadata.traceparent : name === 'tracestate' ? metadata.tracestate : undefined,
    );
    const span = {
      name: `outbox publish ${event.type}`,
      kind: SpanKind.PRODUCER,
      parent,
      attributes: { 'messaging.system': 'nats', 'messaging.message.id': event.eventId },
    };
    const ack = await inSpan(span, () => {
      const headers = natsHeaders();
      const carrier = contextCarrier({
        requestId: metadata.requestId,
        correlationId: metadata.correlationId,
        causationId: event.eventId,
        platformId: metadata.platformId,
      });
      for (const [name, value] of Object.entries(carrier)) if (value) headers.set(name, value);
      return this.options.jetstream.publish(integration.subject, encoder.encode(JSON.stringify(integration.payload)), {
        msgID: event.eventId,
        timeout: this.options.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS,
        headers,
      });
    });
    if (ack.duplicate) this.logger.info({ eventId: event.eventId, relay: this.options.name }, 'JetStream dropped a republished event.');
  }

  /**
   * The lock is a session advisory lock, so the relay keeps one connection of its own, outside the
   * process's pool (and outside a transaction-pooling PgBouncer: see deploy/README.md). A replica
   * that is not the leader keeps that session too and asks again on it, instead of opening a new
   * connection every poll.
   */
  private async tryLead(): Promise<Client | undefined> {
    const client = this.candidate ?? (await this.connectCandidate());
    this.candidate = undefined;
    this.leadershipAttempts.inc({ relay: this.options.name });
    try {
      const key = advisoryKey(`corridor.outbox:${this.schema}.${this.options.name}`);
      const locked = (await client.query('SELECT pg_try_advisory_lock($1) AS locked', [key])).rows[0] as { locked: boolean };
      if (!locked.locked) {
        this.candidate = client;
        return undefined;
      }
      const table = `${this.schema}.outbox_checkpoints`;
      await client.query(`INSERT INTO ${table} (name, position) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`, [this.options.name]);
      const row = (await client.query(`SELECT position FROM ${table} WHERE name = $1`, [this.options.name])).rows[0] as {
        position: string;
      };
      this.position = BigInt(row.position);
      // Standbys' appends wake the leader through this session (see nudge).
      await client.query(`LISTEN ${this.wakeChannel}`);
      client.on('notification', () => this.wakeup.nudge());
      this.leader = client;
      return client;
    } catch (error) {
      // The query's error is what the caller reports; a failing end() of a broken session adds nothing.
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  /** The session a standby asks on, kept between asks: one error listener for its whole life. */
  private async connectCandidate(): Promise<Client> {
    const client = await connectClient(this.options.connectionString);
    // A broken session shows as a failed query on the next use; the loop logs that one.
    client.on('error', () => undefined);
    return client;
  }

  /**
   * Releases the leadership lock for another replica, then ends the session. The unlock is asked
   * first so the lock is free when resign() returns: a session's end lets go of it only once its
   * backend has exited, which a loaded server may do after end() resolved, and a replica starting
   * meanwhile would stay standby for a whole poll interval.
   */
  private async resign(): Promise<void> {
    const leader = this.leader;
    this.leader = undefined;
    // Silence is right for the unlock: it fails only on a session that is already broken, whose
    // backend has ended and taken the lock with it; the end() below releases it in every other case.
    await leader?.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
    // Silence is right here too: after a failed batch the session may already be gone, and at stop
    // ending it is all that is left to do. Either way the lock goes with the session, and the
    // failure that led here (if any) is the one the loop already logged.
    await leader?.end().catch(() => undefined);
  }
}

/** The failed event travels with the error so the loop's log line can name it. */
const withEvent = (error: unknown, event: RecordedEvent): unknown => {
  if (error instanceof Error) return Object.assign(error, { event });
  return Object.assign(new Error(String(error)), { event });
};

/** The events from `start` on, up to (not including) the first whose stream already has one in the wave. */
const waveFrom = (events: RecordedEvent[], start: number): RecordedEvent[] => {
  const streams = new Set<string>();
  let end = start;
  while (end < events.length && !streams.has(events[end]!.streamId)) streams.add(events[end++]!.streamId);
  return events.slice(start, end);
};

/** Creates the JetStream stream for integration events, or adds missing subjects to it. */
export async function ensureEventsStream(
  nc: NatsConnection,
  options: { name: string; subjects: string[]; maxAgeDays?: number },
): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const existing = await jsm.streams.info(options.name).catch((error: { api_error?: { err_code?: number } }) => {
    if (error.api_error?.err_code === 10059) return undefined;
    throw error;
  });
  if (existing) {
    const missing = options.subjects.filter((subject) => !existing.config.subjects?.includes(subject));
    if (missing.length > 0) await jsm.streams.update(options.name, { subjects: [...(existing.config.subjects ?? []), ...missing] });
    return;
  }
  try {
    await jsm.streams.add({
      name: options.name,
      subjects: options.subjects,
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos((options.maxAgeDays ?? 7) * 24 * 60 * 60 * 1000),
      // Republished events are recognised by msgID only inside this window.
      duplicate_window: nanos(2 * 60 * 1000),
    });
  } catch (error) {
    // Another service created it between our info and add: that is the state we wanted.
    if (
      !(await jsm.streams.info(options.name).then(
        () => true,
        () => false,
      ))
    )
      throw error;
  }
}

/**
 * The one envelope every service publishes an event in, so consumers (webhooks, policies) can
 * dedupe by eventId, order per resource by streamPosition and follow correlationId across services.
 */
export const integrationEvent = (
  service: string,
  aggregate: string,
  event: RecordedEvent,
  data: Record<string, unknown> = event.data,
): IntegrationEvent => ({
  subject: eventSubject(service, aggregate, event.type),
  payload: {
    eventId: event.eventId,
    type: event.type,
    streamId: event.streamId,
    streamPosition: event.streamPosition,
    occurredAt: event.metadata.occurredAt,
    platformId: event.metadata.platformId,
    correlationId: event.metadata.correlationId,
    data,
  },
});
