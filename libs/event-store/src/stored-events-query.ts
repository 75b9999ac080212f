import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { Pool } from 'pg';
import {
  decodeCursor,
  eventsListSubject,
  type ListStoredEventsData,
  type Page,
  type ServiceRequest,
  type StoredEventWire,
  toPage,
} from '@corridor/contracts';
import { assertSchemaName } from './sql-names';

// Each service answers GET /events for its own store: a read of its events table, always filtered
// by the asking platform, newest first on (occurredAt, id) with a keyset cursor like every list.

type Row = { id: string; stream_id: string; type: string; data: Record<string, unknown>; metadata: Record<string, unknown> };

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

/** The WHERE clause and its values: the platform always, then each filter the request carries. */
export const storedEventsFilter = (platformId: string, data: ListStoredEventsData): { where: string; values: unknown[] } => {
  const values: unknown[] = [platformId];
  const parts = [`metadata->>'platformId' = $1`];
  const add = (sql: (parameter: string) => string, value: unknown): void => {
    values.push(value);
    parts.push(sql(`$${values.length}`));
  };
  if (data.resourceId !== undefined) add((p) => `stream_id = ${p}`, data.resourceId);
  if (data.correlationId !== undefined) add((p) => `metadata->>'correlationId' = ${p}`, data.correlationId);
  if (data.type !== undefined) add((p) => `type = ${p}`, data.type);
  // occurredAt is stored as an ISO 8601 UTC string, so the bounds are normalised to the same form and
  // compared in the order (and collation) of the events_occurred index, like the keyset below.
  if (data.startDate !== undefined) add((p) => `metadata->>'occurredAt' COLLATE "C" >= ${p}`, new Date(data.startDate).toISOString());
  if (data.endDate !== undefined) add((p) => `metadata->>'occurredAt' COLLATE "C" <= ${p}`, new Date(data.endDate).toISOString());
  if (data.customerId !== undefined) add((p) => `(stream_id = ${p} OR strpos(data::text, '"' || ${p} || '"') > 0)`, data.customerId);
  return { where: parts.join(' AND '), values };
};

const toWire = (service: string, row: Row): StoredEventWire => ({
  id: row.id,
  type: row.type,
  resourceId: row.stream_id,
  service,
  occurredAt: text(row.metadata['occurredAt']) ?? '',
  correlationId: text(row.metadata['correlationId']),
  causationId: text(row.metadata['causationId']),
  data: row.data,
});

/** One page of a service's events, newest first; COLLATE "C" so the order is the gateway's code-point order. */
export const listStoredEvents = async (
  pool: Pool,
  schema: string,
  service: string,
  platformId: string,
  data: ListStoredEventsData,
): Promise<Page<StoredEventWire>> => {
  const s = assertSchemaName(schema);
  const { where, values } = storedEventsFilter(platformId, data);
  const after = data.cursor ? decodeCursor(data.cursor) : undefined;
  const keyset = after
    ? ` AND (metadata->>'occurredAt' COLLATE "C", event_id::text COLLATE "C") < ($${values.length + 1}, $${values.length + 2})`
    : '';
  const order = `ORDER BY metadata->>'occurredAt' COLLATE "C" DESC, event_id::text COLLATE "C" DESC`;
  const [rows, count] = await Promise.all([
    pool.query<Row>(
      `SELECT event_id::text AS id, stream_id, type, data, metadata FROM ${s}.events WHERE ${where}${keyset} ${order} LIMIT ${data.limit + 1}`,
      [...values, ...(after ? [after.createdAt, after.id] : [])],
    ),
    pool.query<{ count: string }>(`SELECT count(*) FROM ${s}.events WHERE ${where}`, values),
  ]);
  const page = rows.rows.map((row) => ({ ...toWire(service, row), createdAt: text(row.metadata['occurredAt']) ?? '' }));
  return toPage(page, data.limit, Number(count.rows[0]?.count ?? 0), ({ createdAt: _createdAt, ...event }) => event);
};

/** The NATS handler of one service's eventsListSubject, made per service because the subject names it. */
export const storedEventsController = (service: string, schema: string, poolToken: string | symbol | Type): Type => {
  @Controller()
  class StoredEventsController {
    constructor(@Inject(poolToken) private readonly source: { pool: Pool }) {}

    @MessagePattern(eventsListSubject(service))
    list(@Payload() request: ServiceRequest<ListStoredEventsData>): Promise<Page<StoredEventWire>> {
      return listStoredEvents(this.source.pool, schema, service, request.context.platformId, request.data);
    }
  }
  return StoredEventsController;
};
