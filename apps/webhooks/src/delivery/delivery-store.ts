import { inTransaction } from '@corridor/event-store';
import type { Pool, PoolClient } from 'pg';
import {
  decodeCursor,
  type Page,
  toPage,
  type WebhookAttemptWire,
  type WebhookDeliveryStatus,
  type WebhookDeliveryWire,
  type WebhookType,
} from '@corridor/contracts';
import { APPROVAL_HOOK } from '../kinds/incoming-payment';

// SQL of the delivery log. Times written here come from the injected Clock (passed in as `now`),
// never from PostgreSQL's now(), so a test clock decides what is due.

export type NewDelivery = {
  id: string;
  eventId: string;
  platformId: string;
  type: WebhookType;
  resourceId: string;
  streamPosition: number;
  body: string;
  retried: boolean;
  occurredAt: string;
  /** The story the webhook is part of: its event's correlation, its cause, and the planning work's W3C trace context. */
  story: DeliveryStory;
};

export type DeliveryStory = { correlationId: string; causationId: string; traceparent?: string; tracestate?: string };

export type DeliveryRow = {
  id: string;
  platform_id: string;
  type: WebhookType;
  resource_id: string;
  stream_position: string;
  body: string;
  retried: boolean;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  occurred_at: Date;
  created_at: Date;
  first_attempt_at: Date | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  /** NULL on rows written before the story was kept (migration 003). */
  correlation_id: string | null;
  causation_id: string | null;
  traceparent: string | null;
  tracestate: string | null;
};

export type DueDelivery = { id: string; platformId: string; resourceId: string; type: WebhookType; attemptCount: number };

type DueRow = { id: string; platform_id: string; resource_id: string; type: WebhookType; attempt_count: number };
const dueDeliveryOf = (row: DueRow): DueDelivery => ({
  id: row.id,
  platformId: row.platform_id,
  resourceId: row.resource_id,
  type: row.type,
  attemptCount: row.attempt_count,
});

/** Platforms the tick leaves out, per lane: each already has as many deliveries as it may in flight, or parked. */
export type BusyPlatforms = { ordinary: string[]; approval: string[] };

const storyColumns = (story: DeliveryStory) => ({
  correlation_id: story.correlationId,
  causation_id: story.causationId,
  traceparent: story.traceparent ?? null,
  tracestate: story.tracestate ?? null,
});

/** Inserts each (event, platform) once; returns the ids actually inserted. */
export const insertDeliveries = async (client: PoolClient, rows: NewDelivery[], now: Date): Promise<string[]> => {
  if (rows.length === 0) return [];
  const result = await client.query<{ id: string }>(
    `INSERT INTO webhooks.deliveries (id, event_id, platform_id, type, resource_id, stream_position, body, retried, status,
        next_attempt_at, occurred_at, created_at,
         correlation_id, causation_id, traceparent, tracestate)
     SELECT r.id, r.event_id, r.platform_id, r.type, r.resource_id, r.stream_position, r.body, r.retried, 'PENDING', $2, r.occurred_at, $2,
         r.correlation_id, r.causation_id, r.traceparent, r.tracestate
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, event_id text, platform_id text, type text, resource_id text,
           stream_position bigint, body text, retried boolean, occurred_at timestamptz,
         correlation_id text, causation_id text, traceparent text, tracestate text)
     ON CONFLICT (event_id, platform_id) DO NOTHING
     RETURNING id`,
    [
      JSON.stringify(
        rows.map((row) => ({
          id: row.id,
          event_id: row.eventId,
          platform_id: row.platformId,
          type: row.type,
          resource_id: row.resourceId,
          stream_position: row.streamPosition,
          body: row.body,
          retried: row.retried,
          occurred_at: row.occurredAt,
          ...storyColumns(row.story),
        })),
      ),
      now,
    ],
  );
  return result.rows.map((row) => row.id);
};

// A delivery may go out only when no earlier webhook of the same resource (same platform) is
// still pending: a later status never overtakes an earlier one.
const IS_HEAD = `NOT EXISTS (SELECT 1 FROM webhooks.deliveries e
  WHERE e.platform_id = d.platform_id AND e.resource_id = d.resource_id AND e.status = 'PENDING'
    AND (e.stream_position, e.id) < (d.stream_position, d.id))`;

/**
 * Pending deliveries that are due and first in line for their resource, leaving out the busy
 * platforms' (of the lane they are busy in): their deliveries would only be parked again, and
 * enough of them at the front of the line would keep the limit from reaching anyone else's.
 */
export const dueHeads = async (pool: Pool, now: Date, limit: number, busy: BusyPlatforms): Promise<DueDelivery[]> => {
  const result = await pool.query<DueRow>(
    `SELECT d.id, d.platform_id, d.resource_id, d.type, d.attempt_count FROM webhooks.deliveries d
      WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
        AND NOT (d.type <> $3 AND d.platform_id = ANY($4::text[])) AND NOT (d.type = $3 AND d.platform_id = ANY($5::text[])) AND ${IS_HEAD}
      ORDER BY d.next_attempt_at LIMIT $2`,
    [now, limit, APPROVAL_HOOK, busy.ordinary, busy.approval],
  );
  return result.rows.map(dueDeliveryOf);
};

/**
 * The first pending delivery of each given resource (the head, by definition), when it is due and
 * not leased: what may go out now that the resources' previous deliveries finished.
 */
export const nextHeads = async (pool: Pool, now: Date, resources: { platformId: string; resourceId: string }[]): Promise<DueDelivery[]> => {
  if (resources.length === 0) return [];
  const result = await pool.query<DueRow>(
    `SELECT h.id, h.platform_id, h.resource_id, h.type, h.attempt_count
       FROM (SELECT DISTINCT * FROM unnest($2::text[], $3::text[]) AS q(platform_id, resource_id)) q
       CROSS JOIN LATERAL (SELECT d.id, d.platform_id, d.resource_id, d.type, d.attempt_count, d.next_attempt_at, d.lease_until
          FROM webhooks.deliveries d
          WHERE d.platform_id = q.platform_id AND d.resource_id = q.resource_id AND d.status = 'PENDING'
          ORDER BY d.stream_position, d.id LIMIT 1) h
      WHERE h.next_attempt_at <= $1 AND (h.lease_until IS NULL OR h.lease_until <= $1)
      ORDER BY h.next_attempt_at`,
    [now, resources.map((resource) => resource.platformId), resources.map((resource) => resource.resourceId)],
  );
  return result.rows.map(dueDeliveryOf);
};

export type Claimed = DeliveryRow & { webhook_endpoint: string | null; environment: string | null };

/**
 * Takes the given deliveries for one attempt each, in one statement; leaves out any that is not
 * due, not first in line, already taken by a live attempt, or finished. The lease outlives the
 * request timeout, so a process killed mid-attempt frees its deliveries for another once it ends.
 * Two deliveries of one resource in the same call: the later one is not first in line (the earlier
 * one is still PENDING), so at most one per resource is taken.
 */
export const claimDeliveries = async (pool: Pool, ids: string[], now: Date, leaseUntil: Date): Promise<Claimed[]> => {
  if (ids.length === 0) return [];
  const result = await pool.query<Claimed>(
    `UPDATE webhooks.deliveries d SET lease_until = $3, attempt_count = d.attempt_count + 1,
        first_attempt_at = COALESCE(d.first_attempt_at, $2)
      WHERE d.id = ANY($1) AND d.status = 'PENDING' AND d.next_attempt_at <= $2 AND (d.lease_until IS NULL OR d.lease_until <= $2)
          AND ${IS_HEAD}
      RETURNING d.*, (SELECT p.webhook_endpoint FROM webhooks.platforms p WHERE p.platform_id = d.platform_id) AS webhook_endpoint,
        (SELECT p.environment FROM webhooks.platforms p WHERE p.platform_id = d.platform_id) AS environment`,
    [ids, now, leaseUntil],
  );
  return result.rows;
};

export type AttemptRecord = { attempt: number; at: Date; url: string; statusCode?: number; latencyMs: number; error?: string };
export type Outcome = { status: 'PENDING'; nextAttemptAt: Date } | { status: 'DELIVERED' | 'FAILED' };
export type FinishedAttempt = { id: string; attempt: AttemptRecord; outcome: Outcome; now: Date };
export type Recorded = { id: string; platformId: string; resourceId: string; morePending: boolean };

/**
 * Attempts and the rows' new states for a batch of deliveries in one statement (one round trip,
 * one transaction). Tells, per delivery, whether another webhook of the same resource is still
 * pending (read before this update, so the row itself is left out): when none is, there is no
 * next head to look for.
 */
export const recordAttempts = async (pool: Pool, finished: FinishedAttempt[]): Promise<Recorded[]> => {
  if (finished.length === 0) return [];
  const result = await pool.query<{ id: string; platform_id: string; resource_id: string; more_pending: boolean }>(
    `WITH r AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS r(id text, attempt integer, at timestamptz, url text, status_code integer, latency_ms integer, error text, status text,
             next_attempt_at timestamptz, now timestamptz)
     ), logged AS (
       INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, at, url, status_code, latency_ms, error)
       SELECT id, attempt, at, url, status_code, latency_ms, error FROM r
     )
     UPDATE webhooks.deliveries d SET status = r.status, lease_until = NULL, last_status_code = r.status_code,
         next_attempt_at = COALESCE(r.next_attempt_at, d.next_attempt_at),
         delivered_at = CASE WHEN r.status = 'DELIVERED' THEN r.now ELSE d.delivered_at END,
         failed_at = CASE WHEN r.status = 'FAILED' THEN r.now ELSE d.failed_at END
       FROM r WHERE d.id = r.id
       RETURNING d.id, d.platform_id, d.resource_id, EXISTS (SELECT 1 FROM webhooks.deliveries e
         WHERE e.platform_id = d.platform_id AND e.resource_id = d.resource_id AND e.status = 'PENDING' AND e.id <> d.id) AS more_pending`,
    [
      JSON.stringify(
        finished.map(({ id, attempt, outcome, now }) => ({
          id,
          attempt: attempt.attempt,
          at: attempt.at.toISOString(),
          url: attempt.url,
          status_code: attempt.statusCode ?? null,
          latency_ms: Math.round(attempt.latencyMs),
          error: attempt.error ?? null,
          status: outcome.status,
          next_attempt_at: outcome.status === 'PENDING' ? outcome.nextAttemptAt.toISOString() : null,
          now: now.toISOString(),
        })),
      ),
    ],
  );
  return result.rows.map((row) => ({
    id: row.id,
    platformId: row.platform_id,
    resourceId: row.resource_id,
    morePending: row.more_pending,
  }));
};

export const renderDelivery = (row: DeliveryRow): WebhookDeliveryWire => ({
  webhookId: row.id,
  type: row.type,
  resourceId: row.resource_id,
  status: row.status,
  attemptCount: row.attempt_count,
  retried: row.retried,
  ...(row.status === 'PENDING' ? { nextAttemptAt: row.next_attempt_at.toISOString() } : {}),
  ...(row.last_status_code !== null ? { lastStatusCode: row.last_status_code } : {}),
  createdAt: row.created_at.toISOString(),
  ...(row.delivered_at ? { deliveredAt: row.delivered_at.toISOString() } : {}),
  ...(row.failed_at ? { failedAt: row.failed_at.toISOString() } : {}),
});

export const listDeliveries = async (
  pool: Pool,
  platformId: string,
  filters: { webhookId?: string; resourceId?: string },
  page: { limit: number; cursor?: string },
): Promise<Page<WebhookDeliveryWire>> => {
  const where = ['platform_id = $1'];
  const values: unknown[] = [platformId];
  if (filters.webhookId) where.push(`id = $${values.push(filters.webhookId)}`);
  if (filters.resourceId) where.push(`resource_id = $${values.push(filters.resourceId)}`);
  const filterSql = where.join(' AND ');
  const filterValues = [...values];
  if (page.cursor) {
    const position = decodeCursor(page.cursor);
    where.push(`(created_at, id) > ($${values.push(position.createdAt)}::timestamptz, $${values.push(position.id)})`);
  }
  const rows = await pool.query<DeliveryRow>(
    `SELECT * FROM webhooks.deliveries WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT $${values.push(page.limit + 1)}`,
    values,
  );
  const count = await pool.query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE ${filterSql}`, filterValues);
  return toPage(
    rows.rows.map((row) => ({ ...row, createdAt: row.created_at })),
    page.limit,
    Number(count.rows[0]?.count ?? 0),
    renderDelivery,
  );
};

export const findDelivery = async (pool: Pool, platformId: string, id: string): Promise<DeliveryRow | null> =>
  (await pool.query<DeliveryRow>('SELECT * FROM webhooks.deliveries WHERE id = $1 AND platform_id = $2', [id, platformId])).rows[0] ?? null;

export const listAttempts = async (pool: Pool, id: string): Promise<WebhookAttemptWire[]> => {
  const result = await pool.query<{
    attempt: number;
    at: Date;
    url: string;
    status_code: number | null;
    latency_ms: number;
    error: string | null;
  }>('SELECT * FROM webhooks.delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [id]);
  return result.rows.map((row) => ({
    attempt: row.attempt,
    at: row.at.toISOString(),
    url: row.url,
    ...(row.status_code !== null ? { statusCode: row.status_code } : {}),
    latencyMs: row.latency_ms,
    ...(row.error ? { error: row.error } : {}),
  }));
};

/**
 * Puts finished deliveries back in line with a fresh retry window. The same webhook id and body go
 * out again; a receiver that already has it answers 409, which counts as delivered.
 */
export const requeueDeliveries = async (
  pool: Pool,
  platformId: string,
  selection: { ids?: string[]; from?: string; to?: string; resourceId?: string },
  now: Date,
): Promise<string[]> => {
  const where = [`platform_id = $1`, `status <> 'PENDING'`];
  const values: unknown[] = [platformId, now];
  if (selection.ids) where.push(`id = ANY($${values.push(selection.ids)})`);
  if (selection.from) where.push(`created_at >= $${values.push(selection.from)}`);
  if (selection.to) where.push(`created_at < $${values.push(selection.to)}`);
  if (selection.resourceId) where.push(`resource_id = $${values.push(selection.resourceId)}`);
  const result = await pool.query<{ id: string }>(
    `UPDATE webhooks.deliveries SET status = 'PENDING', next_attempt_at = $2, first_attempt_at = NULL, delivered_at = NULL,
        failed_at = NULL, lease_until = NULL
      WHERE ${where.join(' AND ')} RETURNING id`,
    values,
  );
  return result.rows.map((row) => row.id).sort();
};

/** The webhooks waiting to be sent: due heads of line, not leased, and how long the longest of them has waited. */
export type DueBacklog = { dueHeads: number; oldestWaitSeconds: number; oldestId: string | null };

/**
 * Each due, unleased head of line waits since it became sendable: the later of its next attempt
 * time and the end of the webhook of its resource before it (a webhook queued behind another only
 * becomes sendable once that one finished). A dispatcher that works finds every due head within
 * a tick; one that waits long is stuck, whatever the receivers do (a retry waits until it is due).
 */
export const dueBacklog = async (pool: Pool, now: Date): Promise<DueBacklog> => {
  const result = await pool.query<{ heads: number; oldest_seconds: number | null; oldest_id: string | null }>(
    `WITH heads AS (
       SELECT d.id, greatest(d.next_attempt_at, coalesce(before.finished, d.next_attempt_at)) AS sendable_since
         FROM webhooks.deliveries d
         LEFT JOIN LATERAL (SELECT max(coalesce(e.delivered_at, e.failed_at)) AS finished FROM webhooks.deliveries e
           WHERE e.platform_id = d.platform_id AND e.resource_id = d.resource_id AND e.status <> 'PENDING'
             AND (e.stream_position, e.id) < (d.stream_position, d.id)) before ON true
        WHERE d.status = 'PENDING' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1) AND ${IS_HEAD}
     )
     SELECT (SELECT count(*)::int FROM heads) AS heads,
       (SELECT extract(epoch FROM $1 - sendable_since)::float8 FROM heads ORDER BY sendable_since LIMIT 1) AS oldest_seconds,
       (SELECT id FROM heads ORDER BY sendable_since LIMIT 1) AS oldest_id`,
    [now],
  );
  const row = result.rows[0];
  return { dueHeads: row?.heads ?? 0, oldestWaitSeconds: Math.max(0, row?.oldest_seconds ?? 0), oldestId: row?.oldest_id ?? null };
};

export const pendingCount = async (pool: Pool): Promise<number> =>
  Number((await pool.query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE status = 'PENDING'`)).rows[0]?.count ?? 0);

/** A TEST sent synchronously (POST /sandbox/webhooks/test) is logged like any delivery, already finished. */
export const recordSentTest = async (
  pool: Pool,
  delivery: NewDelivery,
  attempt: AttemptRecord,
  delivered: boolean,
  now: Date,
): Promise<void> => {
  await inTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO webhooks.deliveries (id, event_id, platform_id, type, resource_id, stream_position, body, retried, status,
          attempt_count, next_attempt_at, last_status_code, occurred_at, created_at, first_attempt_at, delivered_at, failed_at,
         correlation_id, causation_id, traceparent, tracestate)
       VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8, 1, $9, $10, $11, $9, $9, $12, $13, $14, $15, $16, $17)`,
      [
        delivery.id,
        delivery.eventId,
        delivery.platformId,
        delivery.type,
        delivery.resourceId,
        delivery.streamPosition,
        delivery.body,
        delivered ? 'DELIVERED' : 'FAILED',
        now,
        attempt.statusCode ?? null,
        delivery.occurredAt,
        delivered ? now : null,
        delivered ? null : now,
        delivery.story.correlationId,
        delivery.story.causationId,
        delivery.story.traceparent ?? null,
        delivery.story.tracestate ?? null,
      ],
    );
    await client.query(
      `INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, at, url, status_code, latency_ms, error) VALUES ($1, 1, $2, $3, $4,
          $5, $6)`,
      [delivery.id, attempt.at, attempt.url, attempt.statusCode ?? null, Math.round(attempt.latencyMs), attempt.error ?? null],
    );
  });
};
