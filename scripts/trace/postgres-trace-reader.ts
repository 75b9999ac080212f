import { Client } from 'pg';
import type { TimeWindow, TracedDelivery, TracedEvent, TraceReader } from './trace-reader';

// Reads every service's events table and the webhooks delivery log with plain SELECTs, in a
// session that PostgreSQL itself holds read-only, so the trace can run against a live database or
// a replica without any chance of writing. The services keep running while it reads.

export type EventRow = {
  global_position: string;
  event_id: string;
  stream_id: string;
  stream_position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
};
type DeliveryRow = {
  id: string;
  event_id: string;
  platform_id: string;
  type: string;
  resource_id: string;
  status: string;
  attempt_count: number;
  occurred_at: Date;
  created_at: Date;
  correlation_id?: string | null;
  causation_id?: string | null;
};
type AttemptRow = {
  delivery_id: string;
  attempt: number;
  at: Date;
  url: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
};

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

export const toEvent = (service: string, row: EventRow): TracedEvent => ({
  service,
  eventId: row.event_id,
  streamId: row.stream_id,
  position: row.stream_position,
  globalPosition: String(row.global_position),
  type: row.type,
  occurredAt: text(row.metadata['occurredAt']) ?? '',
  platformId: text(row.metadata['platformId']) ?? '',
  correlationId: text(row.metadata['correlationId']),
  causationId: text(row.metadata['causationId']),
  requestId: text(row.metadata['requestId']),
  data: row.data,
});

export const COLUMNS = 'global_position, event_id, stream_id, stream_position, type, data, metadata';

/** `and occurredAt within the window`, numbering its parameters after the query's own. */
const windowSql = (window: TimeWindow, firstParameter: number): { sql: string; values: string[] } => {
  const parts: string[] = [];
  const values: string[] = [];
  if (window.from) parts.push(`metadata->>'occurredAt' >= $${firstParameter + values.push(window.from) - 1}`);
  if (window.to) parts.push(`metadata->>'occurredAt' <= $${firstParameter + values.push(window.to) - 1}`);
  return { sql: parts.map((part) => ` AND ${part}`).join(''), values };
};

export class PostgresTraceReader implements TraceReader {
  private present?: string[];

  private constructor(
    private readonly client: Client,
    /** service name → schema, for the services that keep an event store. */
    private readonly schemas: Record<string, string>,
  ) {}

  static async connect(connectionString: string, schemas: Record<string, string>): Promise<PostgresTraceReader> {
    // default_transaction_read_only: every statement of this session is refused if it would write.
    const client = new Client({
      connectionString,
      options: '-c default_transaction_read_only=on -c statement_timeout=60000',
      application_name: 'corridor-trace',
    });
    await client.connect();
    return new PostgresTraceReader(client, schemas);
  }

  get services(): string[] {
    return Object.keys(this.schemas);
  }

  /** Services whose events table exists on this database (a service that never started has none). */
  private async stores(): Promise<[string, string][]> {
    if (!this.present) {
      const names = Object.values(this.schemas).map((schema) => `${schema}.events`);
      const { rows } = await this.client.query<{ name: string }>(
        'SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NOT NULL',
        [names],
      );
      this.present = rows.map((row) => row.name);
    }
    const present = new Set(this.present);
    return Object.entries(this.schemas).filter(([, schema]) => present.has(`${schema}.events`));
  }

  /** The same WHERE clause asked of every service's store; the rows tagged with their service. */
  private async everywhere(where: string, values: unknown[], limit: number): Promise<TracedEvent[]> {
    const found: TracedEvent[] = [];
    for (const [service, schema] of await this.stores()) {
      const sql = `SELECT ${COLUMNS} FROM ${schema}.events WHERE ${where} ORDER BY global_position LIMIT ${limit}`;
      const { rows } = await this.client.query<EventRow>(sql, values);
      found.push(...rows.map((row) => toEvent(service, row)));
    }
    return found;
  }

  eventsOfStreams(streamIds: string[], window: TimeWindow): Promise<TracedEvent[]> {
    const bounds = windowSql(window, 2);
    return this.everywhere(`stream_id = ANY($1::text[])${bounds.sql}`, [streamIds, ...bounds.values], 100_000);
  }

  eventsWithTraceId(id: string, window: TimeWindow): Promise<TracedEvent[]> {
    const bounds = windowSql(window, 2);
    const where = `(event_id::text = $1 OR metadata->>'requestId' = $1 OR metadata->>'correlationId' = $1)${bounds.sql}`;
    return this.everywhere(where, [id, ...bounds.values], 100_000);
  }

  eventsMentioning(id: string, window: TimeWindow, limit: number): Promise<TracedEvent[]> {
    const bounds = windowSql(window, 2);
    return this.everywhere(`strpos(data::text, $1) > 0${bounds.sql}`, [id, ...bounds.values], limit);
  }

  eventsOfCorrelations(correlationIds: string[], limit: number): Promise<TracedEvent[]> {
    if (correlationIds.length === 0) return Promise.resolve([]);
    return this.everywhere(`metadata->>'correlationId' = ANY($1::text[])`, [correlationIds], limit);
  }

  async deliveriesOfEvents(eventIds: string[]): Promise<TracedDelivery[]> {
    if (eventIds.length === 0 || !(await this.hasDeliveryLog())) return [];
    const { rows } = await this.client.query<DeliveryRow>(
      'SELECT * FROM webhooks.deliveries WHERE event_id = ANY($1::text[]) ORDER BY created_at, id',
      [eventIds],
    );
    return this.withAttempts(rows);
  }

  async delivery(id: string): Promise<TracedDelivery | undefined> {
    if (!(await this.hasDeliveryLog())) return undefined;
    const { rows } = await this.client.query<DeliveryRow>('SELECT * FROM webhooks.deliveries WHERE id = $1', [id]);
    return (await this.withAttempts(rows))[0];
  }

  private async hasDeliveryLog(): Promise<boolean> {
    const { rows } = await this.client.query<{ present: boolean }>(`SELECT to_regclass('webhooks.deliveries') IS NOT NULL AS present`);
    return rows[0]?.present === true;
  }

  private async withAttempts(rows: DeliveryRow[]): Promise<TracedDelivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.client.query<AttemptRow>(
      'SELECT * FROM webhooks.delivery_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt',
      [rows.map((row) => row.id)],
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      platformId: row.platform_id,
      type: row.type,
      resourceId: row.resource_id,
      status: row.status,
      attemptCount: row.attempt_count,
      occurredAt: row.occurred_at.toISOString(),
      createdAt: row.created_at.toISOString(),
      correlationId: row.correlation_id ?? null,
      causationId: row.causation_id ?? null,
      attempts: attempts.rows
        .filter((attempt) => attempt.delivery_id === row.id)
        .map((attempt) => ({
          attempt: attempt.attempt,
          at: attempt.at.toISOString(),
          url: attempt.url,
          statusCode: attempt.status_code,
          latencyMs: attempt.latency_ms,
          error: attempt.error,
        })),
    }));
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
