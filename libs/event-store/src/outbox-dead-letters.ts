import { ErrorCode, NatsError } from 'nats';
import { assertSchemaName } from './sql-names';
import type { RecordedEvent } from './types';
import { wholeNumberSetting } from './whole-number-setting';

// An integration event the outbox relay could not publish after its tries (issue 22 item 3): set
// aside in a table so the events after it keep flowing, shown in /health and /metrics, and listed,
// retried or skipped by an operator (npm run outbox:dead-letters). A retry is a request the
// service's own relay carries out: it alone has the service's mapping and bus credentials.

type Queryable = { query(text: string, values?: unknown[]): Promise<{ rows: any[] }> };

export type DeadLetterState = 'dead' | 'retry' | 'retried' | 'skipped';

export type DeadLetter = {
  relay: string;
  position: string;
  eventId: string;
  streamId: string;
  eventType: string;
  error: string;
  attempts: number;
  state: DeadLetterState;
  deadAt: string;
  resolvedAt: string | null;
};

/** OUTBOX_MAX_ATTEMPTS: tries of one event before it is set aside (default 5). */
export const DEFAULT_OUTBOX_MAX_ATTEMPTS = 5;

export const parseOutboxMaxAttempts = (value: string | undefined): number =>
  wholeNumberSetting('OUTBOX_MAX_ATTEMPTS', value, {
    fallback: DEFAULT_OUTBOX_MAX_ATTEMPTS,
    min: 1,
    max: 1000,
    means: 'a whole number from 1 to 1000',
  });

export const deadLetterDdl = (schema: string): string => {
  const s = assertSchemaName(schema);
  return `
CREATE TABLE IF NOT EXISTS ${s}.outbox_dead_letters (
  relay text NOT NULL,
  global_position bigint NOT NULL,
  event_id text NOT NULL,
  stream_id text NOT NULL,
  event_type text NOT NULL,
  error text NOT NULL,
  attempts integer NOT NULL,
  state text NOT NULL DEFAULT 'dead' CHECK (state IN ('dead', 'retry', 'retried', 'skipped')),
  dead_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  PRIMARY KEY (relay, global_position)
);`;
};

// A bus that is down or slow fails every event alike: counting those tries would set healthy
// events aside during an outage (or under a wrong permission). Only a failure of this one event counts: its mapping threw, it is
// over the server's max_payload, or JetStream refused it with an API error.
const TRANSIENT_CODES: string[] = [
  ErrorCode.Timeout,
  ErrorCode.NoResponders,
  ErrorCode.ConnectionClosed,
  ErrorCode.ConnectionDraining,
  ErrorCode.ConnectionRefused,
  ErrorCode.ConnectionTimeout,
  ErrorCode.Disconnect,
  ErrorCode.JetStream408RequestTimeout,
  // A bus configuration that refuses the service refuses every event alike.
  ErrorCode.PermissionsViolation,
  ErrorCode.AuthorizationViolation,
  ErrorCode.AuthenticationExpired,
];

export const isEventFailure = (error: unknown): boolean => !(error instanceof NatsError && TRANSIENT_CODES.includes(error.code));

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

export const recordDeadLetter = async (
  db: Queryable,
  schema: string,
  relay: string,
  event: RecordedEvent,
  error: unknown,
  attempts: number,
): Promise<void> => {
  const s = assertSchemaName(schema);
  // A retry that failed again comes back to 'dead' with the new cause.
  await db.query(
    `INSERT INTO ${s}.outbox_dead_letters (relay, global_position, event_id, stream_id, event_type, error, attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (relay, global_position) DO UPDATE SET state = 'dead', error = EXCLUDED.error,
       attempts = ${s}.outbox_dead_letters.attempts + EXCLUDED.attempts, dead_at = now(), resolved_at = NULL`,
    [relay, event.globalPosition.toString(), event.eventId, event.streamId, event.type, message(error), attempts],
  );
};

const toDeadLetter = (row: Record<string, any>): DeadLetter => ({
  relay: row['relay'],
  position: String(row['global_position']),
  eventId: row['event_id'],
  streamId: row['stream_id'],
  eventType: row['event_type'],
  error: row['error'],
  attempts: row['attempts'],
  state: row['state'],
  deadAt: new Date(row['dead_at']).toISOString(),
  resolvedAt: row['resolved_at'] ? new Date(row['resolved_at']).toISOString() : null,
});

export const listDeadLetters = async (db: Queryable, schema: string, options: { all?: boolean } = {}): Promise<DeadLetter[]> => {
  const s = assertSchemaName(schema);
  const where = options.all ? '' : `WHERE state IN ('dead', 'retry')`;
  const { rows } = await db.query(`SELECT * FROM ${s}.outbox_dead_letters ${where} ORDER BY relay, global_position LIMIT 1000`);
  return rows.map(toDeadLetter);
};

/** Dead letters not yet retried or skipped: what /health reports. */
export const countOpenDeadLetters = async (db: Queryable, schema: string): Promise<number> => {
  const s = assertSchemaName(schema);
  const { rows } = await db.query(`SELECT count(*)::int AS open FROM ${s}.outbox_dead_letters WHERE state IN ('dead', 'retry')`);
  return rows[0]?.open ?? 0;
};

/** Marks one dead letter (or every open one of a relay, position 'all') for the relay to publish again, or as skipped for good. */
export const resolveDeadLetters = async (
  db: Queryable,
  schema: string,
  relay: string,
  position: string,
  action: 'retry' | 'skip',
): Promise<number> => {
  const s = assertSchemaName(schema);
  const state = action === 'retry' ? `'retry'` : `'skipped'`;
  const resolved = action === 'skip' ? ', resolved_at = now()' : '';
  const which = position === 'all' ? '' : 'AND global_position = $2';
  const values = position === 'all' ? [relay] : [relay, position];
  const { rows } = await db.query(
    `UPDATE ${s}.outbox_dead_letters SET state = ${state}${resolved} WHERE relay = $1 ${which} AND state IN ('dead', 'retry') RETURNING 1`,
    values,
  );
  return rows.length;
};

/** The dead letters an operator asked to retry, oldest first. */
export const deadLettersToRetry = async (db: Queryable, schema: string, relay: string, limit: number): Promise<bigint[]> => {
  const s = assertSchemaName(schema);
  const { rows } = await db.query(
    `SELECT global_position FROM ${s}.outbox_dead_letters WHERE relay = $1 AND state = 'retry' ORDER BY global_position LIMIT $2`,
    [relay, limit],
  );
  return rows.map((row) => BigInt(row['global_position']));
};

export const markRetried = async (db: Queryable, schema: string, relay: string, position: bigint): Promise<void> => {
  const s = assertSchemaName(schema);
  await db.query(`UPDATE ${s}.outbox_dead_letters SET state = 'retried', resolved_at = now() WHERE relay = $1 AND global_position = $2`, [
    relay,
    position.toString(),
  ]);
};
