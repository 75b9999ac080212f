import { Client } from 'pg';
import { collectTrace, type Trace } from '../../../scripts/trace/collect-trace';
import { COLUMNS, type EventRow, PostgresTraceReader, toEvent } from '../../../scripts/trace/postgres-trace-reader';
import type { TimeWindow, TracedEvent } from '../../../scripts/trace/trace-reader';
import { services } from '../../../scripts/services';
import { type Decider, foldStream, MAX_FOLDED_EVENTS, type StateAfter, streamType } from './state-after';

// Everything the console shows, read from the stores in sessions PostgreSQL holds read-only
// (default_transaction_read_only), plus each service's own /health answer.

export type ProjectionRow = {
  name: string;
  position: string;
  updatedAt: string;
  haltedAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
};
export type OutboxRow = { name: string; position: string; updatedAt: string };
export type ServiceStatus = { service: string; schema: string; head: string | null; projections: ProjectionRow[]; outboxes: OutboxRow[] };
export type DeadLetter = {
  id: string;
  type: string;
  resourceId: string;
  platformId: string;
  attemptCount: number;
  lastStatusCode: number | null;
  failedAt: string | null;
};
export type HealthAnswer = { service: string; url: string; status: string; body: unknown };
export type StoresStatus = { services: ServiceStatus[]; deadLetters: { count: number; latest: DeadLetter[] }; health: HealthAnswer[] };

/** The trace plus the state of each event's stream after it, keyed service/eventId. */
export type ConsoleTrace = Trace & { states: Map<string, StateAfter> };

const eventStores = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(services)
      .filter(([, info]) => info.eventStore !== false)
      .map(([name, info]) => [name, info.schema]),
  );

const readOnlyClient = async (connectionString: string): Promise<Client> => {
  const options = '-c default_transaction_read_only=on -c statement_timeout=30000';
  const client = new Client({ connectionString, options, application_name: 'corridor-console' });
  await client.connect();
  return client;
};

/** The latest failed webhooks listed on /status; the page gives the count of all of them. */
const DEAD_LETTERS_SHOWN = 20;
const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);
const exists = async (client: Client, table: string): Promise<boolean> =>
  (await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [table])).rows[0]?.present === true;

const serviceStatus = async (client: Client, service: string, schema: string): Promise<ServiceStatus> => {
  const status: ServiceStatus = { service, schema, head: null, projections: [], outboxes: [] };
  if (await exists(client, `${schema}.events`)) {
    const { rows } = await client.query<{ head: string | null }>(`SELECT max(global_position)::text AS head FROM ${schema}.events`);
    status.head = rows[0]?.head ?? '0';
  }
  if (await exists(client, `${schema}.projection_checkpoints`)) {
    const { rows } = await client.query(`SELECT * FROM ${schema}.projection_checkpoints ORDER BY name`);
    status.projections = rows.map((row) => ({
      name: row.name,
      position: String(row.position),
      updatedAt: row.updated_at.toISOString(),
      haltedAt: iso(row.halted_at ?? null),
      lastError: row.last_error ?? null,
      lastErrorAt: iso(row.last_error_at ?? null),
    }));
  }
  if (await exists(client, `${schema}.outbox_checkpoints`)) {
    const { rows } = await client.query(`SELECT name, position::text, updated_at FROM ${schema}.outbox_checkpoints ORDER BY name`);
    status.outboxes = rows.map((row) => ({ name: row.name, position: row.position, updatedAt: row.updated_at.toISOString() }));
  }
  return status;
};

/** Webhooks that used every attempt and failed: the platform never heard of these events. */
const deadLetters = async (client: Client): Promise<StoresStatus['deadLetters']> => {
  if (!(await exists(client, 'webhooks.deliveries'))) return { count: 0, latest: [] };
  const counted = await client.query<{ count: string }>(`SELECT count(*) FROM webhooks.deliveries WHERE status = 'FAILED'`);
  const count = Number(counted.rows[0]?.count ?? 0);
  const { rows } = await client.query(
    `SELECT * FROM webhooks.deliveries WHERE status = 'FAILED' ORDER BY failed_at DESC NULLS LAST LIMIT ${DEAD_LETTERS_SHOWN}`,
  );
  const latest = rows.map((row) => ({
    id: row.id,
    type: row.type,
    resourceId: row.resource_id,
    platformId: row.platform_id,
    attemptCount: row.attempt_count,
    lastStatusCode: row.last_status_code,
    failedAt: iso(row.failed_at),
  }));
  return { count, latest };
};

/** One service's GET /health within two seconds; a service that does not answer says so rather than hiding. */
const health = async (service: string, url: string): Promise<HealthAnswer> => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    const body = (await response.json()) as { status?: string };
    return { service, url, status: body.status ?? `HTTP ${response.status}`, body };
  } catch (error) {
    return { service, url, status: 'unreachable', body: { error: error instanceof Error ? error.message : String(error) } };
  }
};

export class ConsoleReader {
  constructor(
    private readonly connectionString: string,
    /** service name → its /health URL. */
    private readonly healthUrls: Record<string, string>,
  ) {}

  async status(): Promise<StoresStatus> {
    const client = await readOnlyClient(this.connectionString);
    try {
      const found: ServiceStatus[] = [];
      for (const [service, schema] of Object.entries(eventStores())) found.push(await serviceStatus(client, service, schema));
      const answers = await Promise.all(Object.entries(this.healthUrls).map(([service, url]) => health(service, url)));
      return { services: found, deadLetters: await deadLetters(client), health: answers };
    } finally {
      await client.end();
    }
  }

  /** The trace of an id (scripts/trace), with the state of each traced stream after each of its events. */
  async trace(id: string, window: TimeWindow = {}): Promise<ConsoleTrace> {
    const reader = await PostgresTraceReader.connect(this.connectionString, eventStores());
    try {
      const trace = await collectTrace(reader, id, window);
      return { ...trace, states: await this.statesAfter(trace.events) };
    } finally {
      await reader.close();
    }
  }

  /** Reads each traced stream from position 1 up to its last traced event and folds it with its decider. */
  private async statesAfter(events: TracedEvent[]): Promise<Map<string, StateAfter>> {
    const states = new Map<string, StateAfter>();
    const lastPosition = new Map<string, { service: string; streamId: string; position: number }>();
    for (const event of events) {
      const key = `${event.service}/${event.streamId}`;
      if ((lastPosition.get(key)?.position ?? 0) >= event.position) continue;
      lastPosition.set(key, { service: event.service, streamId: event.streamId, position: event.position });
    }
    const client = await readOnlyClient(this.connectionString);
    try {
      for (const { service, streamId, position } of lastPosition.values()) {
        const own = events.filter((event) => event.service === service && event.streamId === streamId);
        if (position > MAX_FOLDED_EVENTS) {
          // Not read at all: a busy account's history is the replay tool's job, not a page's.
          const unavailable = `${streamId} has over ${MAX_FOLDED_EVENTS} events; fold it with npm run replay`;
          for (const event of own) states.set(`${service}/${event.eventId}`, { unavailable });
          continue;
        }
        const schema = services[service]?.schema;
        const sql = `SELECT ${COLUMNS} FROM ${schema}.events WHERE stream_id = $1 AND stream_position <= $2 ORDER BY stream_position`;
        const history = (await client.query<EventRow>(sql, [streamId, position])).rows.map((row) => toEvent(service, row));
        const folded = foldStream(history, services[service]?.streams[streamType(streamId)] as Decider | undefined);
        for (const event of own) states.set(`${service}/${event.eventId}`, folded.get(event.position) ?? { unavailable: 'not read' });
      }
    } finally {
      await client.end();
    }
    return states;
  }
}
