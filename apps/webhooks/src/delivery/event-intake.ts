import { continueFromCarrier, currentContext, SpanKind, traceCarrier } from '@corridor/telemetry';
import {
  Inject,
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { AckPolicy, connect, DeliverPolicy, JSONCodec, type ConsumerMessages, type JsMsg, type NatsConnection } from 'nats';
import type { Pool } from 'pg';
import { CLOCK, type Clock, DomainError, eventsStreamName, type RequestContext } from '@corridor/contracts';
import { inTransaction, ensureEventsStream } from '@corridor/event-store';
import { createLogger, ServiceClient, natsConnectionOptions } from '@corridor/messaging';
import type { WebhooksServiceConfig } from '../config';
import { SigningKeys } from '../signing/signing-keys';
import { type IntegrationEventEnvelope, loadKinds, type Planned, planWebhook, type WebhookKind } from '../webhook-kind';
import { type DeliveryStory, insertDeliveries, type NewDelivery } from './delivery-store';
import { Dispatcher, WEBHOOKS_CONFIG, WEBHOOKS_POOL } from './dispatcher';
import { renderWebhookBody, webhookIdFor } from './webhook-envelope';

const CONSUMER = 'webhooks-deliveries';
const codec = JSONCodec();
// Messages held in memory at most; above it the consumer stops pulling until a batch is written.
const MAX_BUFFERED = 2_000;
const MAX_BATCH = 256;
const RENDER_TIMEOUT_MS = 10_000;
const RENDER_RETRY_MAX_MS = 5_000;

/** endpointPosition: the platform stream position of the event that set `endpoint` (0: none yet). */
export type PlatformState = { endpoint: string | null; environment: string | null; known: boolean; endpointPosition: number };

/** Reads the integration envelope and the service/aggregate from the subject; null if it is not one. */
export const parseEnvelope = (subject: string, subjectPrefix: string, payload: unknown): IntegrationEventEnvelope | null => {
  const parts = subject.slice(subjectPrefix.length + 1).split('.');
  const event = payload as Partial<IntegrationEventEnvelope> | null;
  if (parts[0] !== 'events' || parts.length !== 4 || !event) return null;
  if (
    typeof event.eventId !== 'string' ||
    typeof event.platformId !== 'string' ||
    typeof event.streamId !== 'string' ||
    typeof event.type !== 'string'
  )
    return null;
  return {
    service: parts[1] ?? '',
    aggregate: parts[2] ?? '',
    eventId: event.eventId,
    type: event.type,
    streamId: event.streamId,
    streamPosition: Number(event.streamPosition ?? 0),
    occurredAt: typeof event.occurredAt === 'string' ? event.occurredAt : new Date(0).toISOString(),
    // A platform's own stream is named by its id; the bootstrap that creates a platform runs in a
    // context that has no platform yet, so PlatformCreated's envelope carries an empty platformId.
    platformId: parts[1] === 'platform' && parts[2] === 'Platform' ? event.streamId : event.platformId,
    ...(typeof event.correlationId === 'string' ? { correlationId: event.correlationId } : {}),
    data: typeof event.data === 'object' && event.data !== null ? event.data : {},
  };
};

/** A platform event's effect on what the webhooks service keeps: the endpoint and environment. */
export const applyPlatformEvent = (state: PlatformState, event: IntegrationEventEnvelope): PlatformState => {
  if (event.service !== 'platform' || event.aggregate !== 'Platform') return state;
  // Replicas take events in parallel batches: an event older than the one that set the endpoint
  // (PlatformCreated after the PATCH /config that followed it) must not set it back.
  const newer = event.streamPosition > state.endpointPosition;
  if (event.type === 'PlatformCreated') {
    const settings = (event.data['settings'] ?? {}) as { webhookEndpoint?: unknown };
    const environment = typeof event.data['environment'] === 'string' ? event.data['environment'] : null;
    const endpoint = typeof settings.webhookEndpoint === 'string' ? settings.webhookEndpoint : null;
    return newer ? { endpoint, environment, known: true, endpointPosition: event.streamPosition } : { ...state, environment, known: true };
  }
  if (event.type === 'PlatformConfigUpdated') {
    const changes = (event.data['changes'] ?? {}) as { webhookEndpoint?: unknown };
    // null clears the endpoint: the platform's later events get no webhook.
    const set = changes.webhookEndpoint;
    const endpoint = typeof set === 'string' ? set : set === null ? null : undefined;
    if (endpoint !== undefined && newer) return { ...state, endpoint, known: true, endpointPosition: event.streamPosition };
  }
  return state;
};

const isPlatformEvent = (event: IntegrationEventEnvelope): boolean => event.service === 'platform' && event.aggregate === 'Platform';

/** plan: the webhook the event would make; planned: the one it makes, its platform having an endpoint. */
type Item = {
  message: JsMsg;
  event: IntegrationEventEnvelope | null;
  plan: Planned | null;
  planned: Planned | null;
  data?: unknown;
  story?: DeliveryStory;
};

/**
 * One durable JetStream consumer on every integration event. Each batch is rendered, then written
 * in one transaction (delivery rows + processed marks + platform endpoints), then acknowledged,
 * then handed to the dispatcher. A crash before the commit redelivers the batch; after the commit
 * the UNIQUE (event, platform) row makes the redelivery a no-op.
 */
@Injectable()
export class EventIntake implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = createLogger('webhooks:intake');
  private readonly kinds: WebhookKind[] = loadKinds();
  private nats?: NatsConnection;
  private messages?: ConsumerMessages;
  private loops: Promise<void>[] = [];
  private buffer: JsMsg[] = [];
  private wake?: () => void;
  private drained?: () => void;
  private running = false;

  constructor(
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksServiceConfig,
    @Inject(WEBHOOKS_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly client: ServiceClient,
    private readonly keys: SigningKeys,
    private readonly dispatcher: Dispatcher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { natsUrl, natsAuth, subjectPrefix } = this.config;
    this.nats = await connect(natsConnectionOptions(natsUrl, natsAuth, 'webhooks-intake'));
    const stream = eventsStreamName(subjectPrefix);
    const filterSubject = `${subjectPrefix}.events.>`;
    await ensureEventsStream(this.nats, { name: stream, subjects: [filterSubject] });
    const jsm = await this.nats.jetstreamManager();
    const existing = await jsm.consumers.info(stream, CONSUMER).catch(() => undefined);
    if (!existing) {
      await jsm.consumers.add(stream, {
        durable_name: CONSUMER,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: filterSubject,
        ack_wait: 30_000_000_000,
        max_ack_pending: 10_000,
      });
    }
    const consumer = await this.nats.jetstream().consumers.get(stream, CONSUMER);
    this.messages = await consumer.consume({ max_messages: 512 });
    this.running = true;
    this.loops = [this.pull(this.messages), this.process()];
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    await this.messages?.close();
    this.wake?.();
    await Promise.all(this.loops);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats?.drain().catch(() => undefined);
  }

  private async pull(messages: ConsumerMessages): Promise<void> {
    try {
      for await (const message of messages) {
        this.buffer.push(message);
        this.wake?.();
        if (this.buffer.length >= MAX_BUFFERED) await new Promise<void>((resolve) => (this.drained = resolve));
      }
    } catch (error) {
      this.logger.error({ err: error }, 'The event consumer stopped.');
    }
  }

  private async process(): Promise<void> {
    while (this.running) {
      if (this.buffer.length === 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const batch = this.buffer.splice(0, MAX_BATCH);
      if (this.buffer.length < MAX_BUFFERED) this.drained?.();
      try {
        await this.handleBatch(batch);
      } catch (error) {
        // Everything in a batch is idempotent, so the whole batch comes back and is done again.
        this.logger.warn({ err: error, size: batch.length }, 'A batch of events failed; it will be redelivered.');
        for (const message of batch) message.nak(1_000);
      }
    }
  }

  async handleBatch(batch: JsMsg[]): Promise<void> {
    const items: Item[] = batch.map((message) => {
      const event = this.parse(message);
      return { message, event, plan: event && planWebhook(this.kinds, event), planned: null };
    });
    // Only platform events (they set endpoints) and events some kind announces need any work: the
    // rest (a quote, an opened account) are acknowledged without a statement.
    const relevant = items.filter(({ event, plan }) => event && (isPlatformEvent(event) || plan !== null));
    const platforms = await this.platformStates(relevant);
    const created: string[] = [];
    // Platform events change the endpoint for the events after them, so the batch is walked in order.
    for (const item of relevant) {
      const event = item.event as IntegrationEventEnvelope;
      const before = platforms.get(event.platformId) ?? { endpoint: null, environment: null, known: false, endpointPosition: 0 };
      const after = applyPlatformEvent(before, event);
      platforms.set(event.platformId, after);
      if (event.type === 'PlatformCreated' && isPlatformEvent(event)) created.push(event.platformId);
      if (after.endpoint) item.planned = item.plan;
    }
    // Deduplicated only where a webhook is due: a redelivered event of a platform without an endpoint writes nothing either way.
    const fresh = await this.unprocessed(relevant.filter((item) => item.planned));
    await Promise.all(fresh.map((item) => this.render(item, batch)));
    const rows = fresh.flatMap((item) => this.deliveryOf(item));
    const platformEvents = relevant.filter((item) => isPlatformEvent(item.event as IntegrationEventEnvelope));
    await this.write(platformEvents, fresh, platforms, created, rows, this.clock.now());
    for (const message of batch) message.ack();
    if (rows.length > 0) await this.dispatcher.offerNew(rows.map((row) => ({ platformId: row.platformId, resourceId: row.resourceId })));
  }

  private parse(message: JsMsg): IntegrationEventEnvelope | null {
    let payload: unknown;
    try {
      payload = codec.decode(message.data);
    } catch {
      payload = null;
    }
    const event = parseEnvelope(message.subject, this.config.subjectPrefix, payload);
    if (!event) this.logger.error({ subject: message.subject }, 'Skipping a message that is not an integration event.');
    return event;
  }

  /** The delivery row of a rendered webhook; none when its owner refused to render it. */
  private deliveryOf(item: Item): NewDelivery[] {
    if (!item.planned || item.data === undefined) return [];
    const event = item.event as IntegrationEventEnvelope;
    const id = webhookIdFor(event.eventId, event.platformId);
    return [
      {
        id,
        eventId: event.eventId,
        platformId: event.platformId,
        type: item.planned.type,
        resourceId: item.planned.resourceId,
        streamPosition: event.streamPosition,
        body: renderWebhookBody(id, item.planned.type, event.occurredAt, item.data),
        retried: item.planned.retried,
        occurredAt: event.occurredAt,
        story: item.story ?? { correlationId: event.correlationId ?? event.eventId, causationId: event.eventId },
      },
    ];
  }

  private async unprocessed(candidates: Item[]): Promise<Item[]> {
    if (candidates.length === 0) return [];
    const ids = candidates.map((item) => (item.event as IntegrationEventEnvelope).eventId);
    const done = await this.pool.query<{ msg_id: string }>(
      `SELECT msg_id FROM webhooks.processed_messages WHERE consumer = $1 AND msg_id = ANY($2)`,
      [CONSUMER, ids],
    );
    const processed = new Set(done.rows.map((row) => row.msg_id));
    const seen = new Set<string>();
    return candidates.filter((item) => {
      const id = (item.event as IntegrationEventEnvelope).eventId;
      if (processed.has(id) || seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  }

  private async platformStates(items: Item[]): Promise<Map<string, PlatformState>> {
    if (items.length === 0) return new Map();
    const ids = [...new Set(items.map((item) => (item.event as IntegrationEventEnvelope).platformId))];
    const result = await this.pool.query<{
      platform_id: string;
      webhook_endpoint: string | null;
      environment: string | null;
      endpoint_position: number;
    }>('SELECT platform_id, webhook_endpoint, environment, endpoint_position FROM webhooks.platforms WHERE platform_id = ANY($1)', [ids]);
    return new Map(
      result.rows.map((row) => [
        row.platform_id,
        { endpoint: row.webhook_endpoint, environment: row.environment, known: true, endpointPosition: row.endpoint_position },
      ]),
    );
  }

  /**
   * Asks the owning service for the resource as of the event. While it does not answer the batch
   * waits (and keeps its messages from being redelivered): sending later events of the resource
   * first would break per-resource order. A refusal (the resource is unknown) will not change on
   * retry, so that event gets no webhook.
   */
  private async render(item: Item, batch: JsMsg[]): Promise<void> {
    const planned = item.planned as Planned;
    const event = item.event as IntegrationEventEnvelope;
    const correlationId = event.correlationId ?? event.eventId;
    // Each webhook continues its event's story: its trace (the outbox's traceparent in the headers), its ids in the log lines.
    const read = (name: string) => item.message.headers?.get(name) || undefined;
    const span = { name: `webhook render ${planned.type}`, kind: SpanKind.CONSUMER, attributes: { 'messaging.message.id': event.eventId } };
    await continueFromCarrier(
      read,
      { requestId: event.eventId, correlationId, causationId: event.eventId, platformId: event.platformId },
      span,
      async () => {
        // Kept with the delivery, so each later attempt (a BullMQ job) logs and traces in this story.
        item.story = { correlationId: currentContext()?.correlationId ?? correlationId, causationId: event.eventId, ...traceCarrier() };
        if ('inline' in planned.render) {
          item.data = planned.render.inline;
          return;
        }
        const context: RequestContext = {
          platformId: event.platformId,
          actor: { kind: 'system', name: 'webhooks' },
          requestId: event.eventId,
          correlationId,
          causationId: event.eventId,
        };
        await this.renderWithRetries(item, planned.type, planned.render, context, batch);
      },
    );
  }

  private async renderWithRetries(
    item: Item,
    type: string,
    source: { subject: string; request: Record<string, unknown> },
    context: RequestContext,
    batch: JsMsg[],
  ): Promise<void> {
    const event = item.event as IntegrationEventEnvelope;
    for (let failures = 0; ; failures += 1) {
      try {
        item.data = await this.client.request(source.subject, source.request, { context, timeoutMs: RENDER_TIMEOUT_MS });
        return;
      } catch (error) {
        if (error instanceof DomainError && error.status < 500) {
          this.logger.error(
            { err: error, eventId: event.eventId, type },
            'The owning service refused to render the resource; no webhook for this event.',
          );
          return;
        }
        if (!this.running) throw error;
        this.logger.warn({ err: error, eventId: event.eventId, failures }, 'Rendering failed; retrying.');
        for (const message of batch) message.working();
        await new Promise((resolve) => setTimeout(resolve, Math.min(RENDER_RETRY_MAX_MS, 100 * 2 ** failures)));
      }
    }
  }

  /**
   * One transaction: the endpoints the batch's platform events set, a new platform's signing key,
   * the deliveries, and the processed marks of the events they came from. Nothing to write: no transaction.
   */
  private async write(
    platformEvents: Item[],
    fresh: Item[],
    platforms: Map<string, PlatformState>,
    created: string[],
    rows: NewDelivery[],
    now: Date,
  ): Promise<void> {
    if (platformEvents.length === 0 && fresh.length === 0) return;
    await inTransaction(this.pool, async (client) => {
      const touched = new Set(platformEvents.map((item) => (item.event as IntegrationEventEnvelope).platformId));
      for (const platformId of touched) {
        const state = platforms.get(platformId);
        if (!state?.known) continue;
        await client.query(
          // The other replica may have written a newer endpoint since this batch read the row.
          `INSERT INTO webhooks.platforms (platform_id, environment, webhook_endpoint, endpoint_position, updated_at)
           VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (platform_id) DO UPDATE SET environment = COALESCE(EXCLUDED.environment, webhooks.platforms.environment),
             webhook_endpoint = CASE WHEN EXCLUDED.endpoint_position > webhooks.platforms.endpoint_position
               THEN EXCLUDED.webhook_endpoint ELSE webhooks.platforms.webhook_endpoint END,
             endpoint_position = GREATEST(EXCLUDED.endpoint_position, webhooks.platforms.endpoint_position),
             updated_at = EXCLUDED.updated_at`,
          [platformId, state.environment, state.endpoint, state.endpointPosition, now],
        );
      }
      for (const platformId of created) await this.keys.ensure(platformId, now, client);
      await insertDeliveries(client, rows, now);
      if (fresh.length === 0) return;
      await client.query(
        `INSERT INTO webhooks.processed_messages (consumer, msg_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
        [CONSUMER, fresh.map((item) => (item.event as IntegrationEventEnvelope).eventId)],
      );
    });
  }
}
