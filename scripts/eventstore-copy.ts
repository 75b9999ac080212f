import { Client } from 'pg';
import {
  copyEvents,
  createPostgresEventStore,
  createServiceEventStore,
  describeEventStore,
  eventStoreChoiceFrom,
} from '@corridor/event-store';
import { createProgress } from './progress';
import { databaseUrl, services } from './services';

// Moves one service's events from PostgreSQL to KurrentDB (docs/decisions/0036):
//   EVENTSTORE_URL=kurrentdb://127.0.0.1:2113?tls=false npm run eventstore:copy -- --service accounts
// With the service stopped: copies <schema>.events into the service's streams (<service>-*) at the
// same versions, then moves its projection and outbox checkpoints to the matching KurrentDB
// positions and records the copy, in one transaction. A run that stops half way is run again and
// resumes; a finished copy refuses to run twice (the checkpoints then count KurrentDB positions).
// Then start the service with EVENT_STORE_<SERVICE>=kurrentdb (or EVENT_STORE=kurrentdb).

const usage = `usage: EVENTSTORE_URL=kurrentdb://host:2113?tls=false npm run eventstore:copy -- --service <name>
  one of: ${Object.entries(services)
    .filter(([, info]) => info.eventStore !== false)
    .map(([name]) => name)
    .join(', ')}`;

const CHECKPOINT_TABLES = ['projection_checkpoints', 'outbox_checkpoints'] as const;

type Checkpoint = { table: (typeof CHECKPOINT_TABLES)[number]; name: string; position: bigint };

const readCheckpoints = async (client: Client, schema: string): Promise<Checkpoint[]> => {
  const checkpoints: Checkpoint[] = [];
  for (const table of CHECKPOINT_TABLES) {
    const exists = (await client.query('SELECT to_regclass($1) AS found', [`${schema}.${table}`])).rows[0].found;
    if (!exists) continue;
    const rows = (await client.query<{ name: string; position: string }>(`SELECT name, position FROM ${schema}.${table}`)).rows;
    checkpoints.push(...rows.map((row) => ({ table, name: row.name, position: BigInt(row.position) })));
  }
  return checkpoints;
};

/** The record of finished copies: a second run must not translate positions that are already KurrentDB's. */
const COPIES_DDL = (schema: string) => `CREATE TABLE IF NOT EXISTS ${schema}.event_store_copies (
  target text PRIMARY KEY, source_head bigint NOT NULL, copied integer NOT NULL, copied_at timestamptz NOT NULL DEFAULT now())`;

type Move = { checkpoint: Checkpoint; to: bigint };
type CopyRecord = { target: string; sourceHead: bigint; copied: number };
const MOVE_SQL = (schema: string, table: string) =>
  `UPDATE ${schema}.${table} SET position = $2, updated_at = now() WHERE name = $1 AND position = $3`;

/** Every checkpoint to its KurrentDB position and the copy recorded, together or not at all. */
const moveCheckpoints = async (client: Client, schema: string, moves: Move[], record: CopyRecord): Promise<void> => {
  await client.query('BEGIN');
  try {
    for (const { checkpoint, to } of moves) {
      const moved = await client.query(MOVE_SQL(schema, checkpoint.table), [
        checkpoint.name,
        to.toString(),
        checkpoint.position.toString(),
      ]);
      if (moved.rowCount !== 1) {
        throw new Error(
          `${checkpoint.table} ${checkpoint.name} moved during the copy: is the service still running? Stop it and run the copy again.`,
        );
      }
    }
    await client.query(COPIES_DDL(schema));
    await client.query(`INSERT INTO ${schema}.event_store_copies (target, source_head, copied) VALUES ($1, $2, $3)`, [
      record.target,
      record.sourceHead.toString(),
      record.copied,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
};

/** Nothing to copy, or a copy to this target already finished: the run stops before it writes. */
const refuseUncopyable = async (client: Client, service: string, schema: string, target: string): Promise<void> => {
  const events = (await client.query('SELECT to_regclass($1) AS found', [`${schema}.events`])).rows[0].found;
  if (!events) throw new Error(`${service} has no PostgreSQL event store (${schema}.events) to copy.`);
  await client.query(COPIES_DDL(schema));
  const done = (await client.query<{ copied_at: Date }>(`SELECT copied_at FROM ${schema}.event_store_copies WHERE target = $1`, [target]))
    .rows[0];
  if (done) {
    throw new Error(
      `${service} was copied to ${target} at ${done.copied_at.toISOString()}; its checkpoints already count KurrentDB positions.`,
    );
  }
};

const copyService = async (service: string): Promise<void> => {
  const info = services[service];
  if (!info || info.eventStore === false) throw new Error(`Unknown service "${service}".\n${usage}`);
  // The target is this service's KurrentDB streams whatever EVENT_STORE says today.
  const choice = eventStoreChoiceFrom(service, { ...process.env, [`EVENT_STORE_${service.toUpperCase()}`]: 'kurrentdb' });
  const target = describeEventStore(choice);
  const client = new Client({ connectionString: databaseUrl() });
  await client.connect();
  const source = createPostgresEventStore({ connectionString: databaseUrl(), schema: info.schema, ensureSchema: false });
  const destination = createServiceEventStore({ choice, connectionString: databaseUrl(), schema: info.schema });
  try {
    await refuseUncopyable(client, service, info.schema, target);
    const checkpoints = await readCheckpoints(client, info.schema);
    const sourceHead = await source.headPosition();
    console.error(`copying ${service} (${info.schema}.events up to position ${sourceHead}) to ${target}; the service must be stopped`);
    const bar = createProgress({ title: `copy ${service}`, unit: 'events', total: Number(sourceHead) });
    const result = await copyEvents({
      source,
      target: destination,
      checkpoints: checkpoints.map((checkpoint) => checkpoint.position),
      onProgress: ({ position, copied, skipped }) => bar.update(Number(position), `${copied} copied, ${skipped} already there`),
    }).finally(() => bar.stop());
    const moves = checkpoints.map((checkpoint) => ({ checkpoint, to: result.translated.get(checkpoint.position) ?? 0n }));
    await moveCheckpoints(client, info.schema, moves, { target, sourceHead: result.sourceHead, copied: result.copied });
    const head = await destination.headPosition();
    console.log(
      `${service}: ${result.copied} events copied, ${result.skipped} were already there (an earlier run); KurrentDB head ${head}`,
    );
    for (const { checkpoint, to } of moves)
      console.log(`  ${checkpoint.table} ${checkpoint.name}: position ${checkpoint.position} -> ${to}`);
    console.log(`start ${service} with EVENT_STORE_${service.toUpperCase()}=kurrentdb EVENTSTORE_URL=<the same URL>`);
  } finally {
    await destination.close();
    await source.close();
    await client.end();
  }
};

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const at = args.indexOf('--service');
  const service = at >= 0 ? args[at + 1] : undefined;
  if (!service) throw new Error(usage);
  if (!process.env['EVENTSTORE_URL']) throw new Error(`EVENTSTORE_URL is not set: it names the KurrentDB server to copy to.\n${usage}`);
  await copyService(service);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
