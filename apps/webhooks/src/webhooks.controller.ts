import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Pool } from 'pg';
import {
  CLOCK,
  type Clock,
  DomainError,
  invalidInput,
  type ListWebhookDeliveriesData,
  newUuid,
  type Page,
  type PlatformConfigWire,
  type RedeliverWebhooksData,
  type RedeliverWebhooksReply,
  type ServiceRequest,
  subjects,
  type TestWebhookResponseWire,
  type WebhookAttemptWire,
  type WebhookDeliveryWire,
  type WebhookIdData,
  type WebhookSigningKeyWire,
} from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import { traceCarrier } from '@corridor/telemetry';
import type { WebhooksServiceConfig } from './config';
import { findDelivery, listAttempts, listDeliveries, recordSentTest, renderDelivery, requeueDeliveries } from './delivery/delivery-store';
import { Dispatcher, WEBHOOKS_CONFIG, WEBHOOKS_POOL } from './delivery/dispatcher';
import { postWebhook, targetPolicy } from './delivery/post-webhook';
import { isAcknowledged } from './delivery/retry-schedule';
import { testWebhookAnswer } from './delivery/test-webhook-answer';
import { renderWebhookBody } from './delivery/webhook-envelope';
import { signatureHeader } from './signing/signing-key';
import { SigningKeys } from './signing/signing-keys';

const notFound = (webhookId: string) => new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Webhook ${webhookId} was not found.`);
/** A range redelivery touches at most this many webhooks; a wider one is refused so it can be split. */
const REDELIVER_MAX = 10_000;

@Controller()
export class WebhooksController {
  constructor(
    @Inject(WEBHOOKS_CONFIG) private readonly config: WebhooksServiceConfig,
    @Inject(WEBHOOKS_POOL) private readonly pool: Pool,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly client: ServiceClient,
    private readonly keys: SigningKeys,
    private readonly dispatcher: Dispatcher,
  ) {}

  /**
   * POST /sandbox/webhooks/test: one signed TEST, sent now, never retried, logged. It goes only
   * where deliveries go (public addresses unless the deployment allows private ones), and its
   * answer carries a body only from a public address (testWebhookAnswer).
   */
  @MessagePattern(subjects.webhooks.test.send)
  async sendTest(@Payload() request: ServiceRequest<Record<string, never>>): Promise<TestWebhookResponseWire> {
    const { platformId } = request.context;
    // Asked of the platform service rather than read from our copy, so a PATCH just before is seen.
    const config = await this.client.request<PlatformConfigWire>(subjects.platform.config.get, {}, { context: request.context });
    const url = config.webhookEndpoint;
    if (!url)
      throw new DomainError(
        'WEBHOOK_ENDPOINT_NOT_SET',
        'validation',
        'No webhookEndpoint is configured. Set one with PATCH /config, then send the test again.',
        { field: 'webhookEndpoint' },
      );
    const now = this.clock.now();
    const id = `Webhook:${newUuid()}`;
    const body = renderWebhookBody(id, 'TEST', now.toISOString(), {});
    const signature = signatureHeader(body, await this.keys.privateKey(platformId, now));
    const result = await postWebhook(url, body, signature, this.config.requestTimeoutMs, targetPolicy(this.config.allowPrivateTargets));
    await recordSentTest(
      this.pool,
      {
        id,
        eventId: id,
        platformId,
        type: 'TEST',
        resourceId: platformId,
        streamPosition: 0,
        body,
        retried: false,
        occurredAt: now.toISOString(),
        // A TEST has no event: the request that sent it is its story and its cause.
        story: { correlationId: request.context.correlationId, causationId: request.context.requestId, ...traceCarrier() },
      },
      {
        attempt: 1,
        at: now,
        url,
        latencyMs: result.latencyMs,
        ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
        ...(result.error ? { error: result.error } : {}),
      },
      isAcknowledged(result.statusCode),
      now,
    );
    const answer = testWebhookAnswer(url, result);
    if (!answer) {
      const message = `The webhook endpoint ${url} could not be reached: ${result.error ?? 'unknown error'}.`;
      throw new DomainError('WEBHOOK_DELIVERY_ERROR', 'validation', message, { url });
    }
    return answer;
  }

  @MessagePattern(subjects.webhooks.delivery.list)
  list(@Payload() request: ServiceRequest<ListWebhookDeliveriesData>): Promise<Page<WebhookDeliveryWire>> {
    const { webhookId, resourceId, limit, cursor } = request.data;
    return listDeliveries(
      this.pool,
      request.context.platformId,
      { ...(webhookId ? { webhookId } : {}), ...(resourceId ? { resourceId } : {}) },
      { limit, ...(cursor ? { cursor } : {}) },
    );
  }

  @MessagePattern(subjects.webhooks.delivery.attempts)
  async attempts(@Payload() request: ServiceRequest<WebhookIdData>): Promise<{ data: WebhookAttemptWire[] }> {
    const row = await findDelivery(this.pool, request.context.platformId, request.data.webhookId);
    if (!row) throw notFound(request.data.webhookId);
    return { data: await listAttempts(this.pool, row.id) };
  }

  @MessagePattern(subjects.webhooks.delivery.redeliver)
  async redeliver(@Payload() request: ServiceRequest<WebhookIdData>): Promise<WebhookDeliveryWire> {
    const { platformId } = request.context;
    if (!(await findDelivery(this.pool, platformId, request.data.webhookId))) throw notFound(request.data.webhookId);
    await requeueDeliveries(this.pool, platformId, { ids: [request.data.webhookId] }, this.clock.now());
    await this.dispatcher.tick();
    const row = await findDelivery(this.pool, platformId, request.data.webhookId);
    if (!row) throw notFound(request.data.webhookId);
    return renderDelivery(row);
  }

  @MessagePattern(subjects.webhooks.delivery.redeliverMany)
  async redeliverMany(@Payload() request: ServiceRequest<RedeliverWebhooksData>): Promise<RedeliverWebhooksReply> {
    const { from, to, resourceId } = request.data;
    if (!resourceId && !(from && to))
      throw invalidInput('Name either resourceId, or both from and to (a time range of the webhooks to send again).', {
        field: resourceId === undefined ? 'from' : 'resourceId',
      });
    if (from && to && Date.parse(from) >= Date.parse(to)) throw invalidInput('from must be earlier than to.', { field: 'from' });
    const { platformId } = request.context;
    const count = await this.pool.query<{ count: string }>(
      `SELECT count(*) FROM webhooks.deliveries WHERE platform_id = $1 AND status <> 'PENDING'
       AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at < $3)
       AND ($4::text IS NULL OR resource_id = $4)`,
      [platformId, from ?? null, to ?? null, resourceId ?? null],
    );
    if (Number(count.rows[0]?.count ?? 0) > REDELIVER_MAX)
      throw invalidInput(`The selection holds more than ${REDELIVER_MAX} webhooks; narrow from/to.`, { field: 'from' });
    const webhookIds = await requeueDeliveries(
      this.pool,
      platformId,
      { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(resourceId ? { resourceId } : {}) },
      this.clock.now(),
    );
    await this.dispatcher.tick();
    return { redelivered: webhookIds.length, webhookIds };
  }

  @MessagePattern(subjects.webhooks.signingKey.get)
  signingKey(@Payload() request: ServiceRequest<unknown>): Promise<WebhookSigningKeyWire> {
    return this.keys.publicKey(request.context.platformId, this.clock.now());
  }

  @MessagePattern(subjects.webhooks.signingKey.rotate)
  rotate(@Payload() request: ServiceRequest<unknown>): Promise<WebhookSigningKeyWire> {
    return this.keys.rotate(request.context.platformId, this.clock.now());
  }
}
