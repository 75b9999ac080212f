import { inspect } from 'node:util';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import {
  consoleLogger,
  createServiceEventStore,
  createShadowRebuild,
  describeEventStore,
  type EventStore,
  eventStoreChoiceFrom,
  ProjectionRunner,
  type RecordedEvent,
  type ShadowProgress,
} from '@corridor/event-store';
import { createProgress, type Progress } from './progress';
import { describeDiff, planRebuild } from './rebuild-plan';
import { databaseUrl, ownerOfStream, services } from './services';

// How an engineer finds out why a resource is in the state it is in:
//   npm run replay -- <streamId>                 every event with its position, metadata and the state after it
//   npm run replay -- <streamId> --json          the same as JSON lines, for tools
//   npm run replay -- --rebuild <projection> --shadow [--swap]   rebuilds beside the live read model, diffs, swaps when asked
//   npm run replay -- --rebuild <projection> --destructive       drops a read model and rebuilds it in place
//   npm run replay -- --status [--json]          every projection's position, the head, halts and last errors

const usage = `usage:
  npm run replay -- <streamId> [--json]          e.g. Customer:0196f1a0-...
  npm run replay -- --rebuild <projection> --shadow [--swap] [--json] | --swap | --destructive
                                                one of: ${Object.values(services)
                                                  .flatMap((s) => s.projections.map((p) => p.name))
                                                  .join(', ')}
  npm run replay -- --status [--json]           every projection and outbox: position, head, lag, halt, last error`;

const color = process.stdout.isTTY ? (code: number, text: string) => `\u001b[${code}m${text}\u001b[0m` : (_: number, text: string) => text;
const bold = (text: string) => color(1, text);
const dim = (text: string) => color(2, text);
const cyan = (text: string) => color(36, text);
const show = (value: unknown) => inspect(value, { depth: 6, colors: process.stdout.isTTY, breakLength: 110, compact: 3 });

/** Top-level members of the state that this event changed, so a long state stays readable. */
const changedMembers = (before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(after).filter(([key, value]) => JSON.stringify(before[key]) !== JSON.stringify(value)));

const actorText = (event: RecordedEvent): string => {
  const actor = event.metadata.actor;
  if (!actor) return 'unknown';
  return actor.kind === 'token' ? `token ${actor.tokenId}` : actor.kind === 'agent' ? `agent ${actor.agentId}` : `system ${actor.name}`;
};

/**
 * The service's events through the port, in whichever store EVENT_STORE_<SERVICE> / EVENT_STORE
 * names (run this with the service's own environment); read models and checkpoints stay in PostgreSQL.
 */
const storeOf = (service: string, schema: string, options: { ensureSchema?: boolean } = {}): EventStore =>
  createServiceEventStore({ choice: eventStoreChoiceFrom(service, process.env), connectionString: databaseUrl(), schema, ...options });

const printStream = async (streamId: string, asJson: boolean): Promise<void> => {
  const owner = ownerOfStream(streamId);
  if (!owner)
    throw new Error(
      `No service keeps streams of type "${streamId.split(':')[0]}". Known: ${Object.values(services)
        .flatMap((s) => Object.keys(s.streams))
        .join(', ')}.`,
    );
  const store = storeOf(owner.service, owner.info.schema);
  try {
    const { events, version } = await store.readStream(streamId);
    if (events.length === 0) throw new Error(`Stream ${streamId} has no events in the ${owner.service} service.`);
    if (!asJson) console.log(`${bold(streamId)}  ${dim(`${owner.service} service, ${events.length} events, version ${version}`)}\n`);
    let state = owner.decider.initialState();
    for (const event of events) {
      const before = state;
      state = owner.decider.evolve(state, event);
      if (asJson) {
        // Some states keep amounts as bigint (a card transaction's): JSON carries them as strings.
        console.log(
          JSON.stringify({ ...event, globalPosition: event.globalPosition.toString(), stateAfter: state }, (_key, value: unknown) =>
            typeof value === 'bigint' ? value.toString() : value,
          ),
        );
        continue;
      }
      const meta = event.metadata;
      console.log(
        `${cyan(`#${event.streamPosition}`)} ${bold(event.type)}  ${dim(
          `global ${event.globalPosition}  ${meta.occurredAt}  schema ` + `v${meta.schemaVersion}`,
        )}`,
      );
      console.log(
        dim(
          `   by ${actorText(event)}  platform ${meta.platformId || '-'}  request ${meta.requestId}` +
            `  correlation ${meta.correlationId}${meta.commandId ? `  command ${meta.commandId}` : ''}`,
        ),
      );
      console.log(`   data   ${show(event.data).replace(/\n/g, '\n          ')}`);
      const changed = changedMembers(before, state);
      console.log(`   state  ${Object.keys(changed).length ? show(changed).replace(/\n/g, '\n          ') : dim('(unchanged)')}\n`);
    }
    if (!asJson) console.log(`${bold('final state')}\n${show(state)}`);
  } finally {
    await store.close();
  }
};

const projectionOwner = (name: string) => {
  const entry = Object.entries(services).find(([, info]) => info.projections.some((projection) => projection.name === name));
  if (!entry) throw new Error(`Unknown projection "${name}".\n${usage}`);
  const [service, info] = entry;
  return { service, info, projection: info.projections.find((projection) => projection.name === name)! };
};

/** A bar per stretch of catching up (the build, then each short catch-up with the live table). */
const shadowProgress = (name: string) => {
  let bar: Progress | undefined;
  let stretch = '';
  return {
    onProgress: ({ position, target, from }: ShadowProgress) => {
      if (`${from}-${target}` !== stretch) {
        bar?.stop();
        stretch = `${from}-${target}`;
        bar = target > from ? createProgress({ title: `shadow ${name}`, unit: 'events', total: Number(target - from) }) : undefined;
      }
      bar?.update(Number(position - from), `position ${position} of ${target}`);
    },
    stop: () => bar?.stop(),
  };
};

/**
 * --shadow: folds the projection into <schema>_shadow while the live table serves, prints how the
 * two differ, and with --swap puts the rebuilt table in place (see libs/event-store/src/shadow-rebuild.ts).
 */
const rebuildShadow = async (name: string, plan: { build: boolean; swap: boolean }, asJson: boolean): Promise<void> => {
  const { service, info, projection } = projectionOwner(name);
  const store = storeOf(service, info.schema);
  const progress = shadowProgress(name);
  const shadow = await createShadowRebuild({
    connectionString: databaseUrl(),
    store,
    schema: info.schema,
    projection,
    service,
    logger: consoleLogger('replay', 'warn'),
    onProgress: progress.onProgress,
  });
  try {
    const startedAt = Date.now();
    if (plan.build) {
      const position = await shadow.build();
      progress.stop();
      const where = `${shadow.shadowSchema}.${shadow.table}`;
      const took = Date.now() - startedAt;
      console.error(`built ${service}.${name} into ${where} up to position ${position} in ${took} ms; the live table served meanwhile`);
    }
    const diff = await shadow.compare();
    progress.stop();
    if (asJson) console.log(JSON.stringify(diff, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
    else for (const line of describeDiff(diff)) console.log(line);
    if (!plan.swap) {
      console.error(`nothing live changed; to put the rebuilt table in place: npm run replay -- --rebuild ${name} --swap`);
      return;
    }
    const { position } = await shadow.swap();
    console.error(
      `swapped: ${info.schema}.${shadow.table} is the rebuilt table, live from position ${position}; ` +
        `the replaced one is kept as ${shadow.retiredSchema}.${shadow.table} until the next swap`,
    );
  } finally {
    progress.stop();
    await shadow.close();
    await store.close();
  }
};

/** --destructive: the old way, deleting the live rows and replaying them in place. */
const rebuildInPlace = async (name: string): Promise<void> => {
  const { service, info } = projectionOwner(name);
  const store = storeOf(service, info.schema);
  const orm = await MikroORM.init({
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl(),
    schema: info.schema,
    entities: info.projections.map((p) => p.entity),
    discovery: { warnWhenNoEntities: false },
  });
  const head = await store.headPosition();
  const bar = createProgress({ title: `rebuild ${name}`, unit: 'events', total: Number(head) });
  try {
    const runner = new ProjectionRunner({
      store,
      orm,
      schema: info.schema,
      projections: info.projections,
      logger: consoleLogger('replay', 'warn'),
      service,
    });
    const startedAt = Date.now();
    // The runner moves its in-memory position after each batch; the bar reads it.
    const position = () => Number(runner.status().projections.find((p) => p.name === name)?.position ?? 0);
    const timer = setInterval(() => bar.update(position()), 200);
    await runner.rebuild(name).finally(() => clearInterval(timer));
    bar.update(Number(head));
    bar.stop();
    console.log(`rebuilt ${service}.${name} from zero up to global position ${await store.headPosition()} in ${Date.now() - startedAt} ms`);
  } finally {
    bar.stop();
    await orm.close(true);
    await store.close();
  }
};

const rebuild = async (name: string, flags: string[]): Promise<void> => {
  projectionOwner(name);
  const plan = planRebuild(flags);
  if (plan.mode === 'refused') throw new Error(plan.reason);
  if (plan.mode === 'destructive') return rebuildInPlace(name);
  return rebuildShadow(name, { build: plan.mode === 'shadow', swap: plan.mode === 'swap' || plan.swap }, flags.includes('--json'));
};

type CheckpointRow = {
  name: string;
  position: string;
  updated_at: Date;
  halted_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  last_error_event: { position: string; streamId: string; type: string } | null;
};

/** The head through the port: the position readAll can reach, which is what every checkpoint is measured against. */
const headOf = async (service: string, schema: string): Promise<bigint> => {
  // A look, not a start: nothing is created in a schema the service has not made.
  const store = storeOf(service, schema, { ensureSchema: false });
  try {
    return await store.headPosition();
  } finally {
    await store.close();
  }
};

/**
 * The operator's view of every read model and outbox, from their checkpoints in PostgreSQL and the
 * head of each service's event store (no service need be up): where each stands, whether it is
 * halted and on what.
 */
const printStatus = async (asJson: boolean): Promise<void> => {
  const client = new Client({ connectionString: databaseUrl() });
  await client.connect();
  let halted = 0;
  try {
    for (const [service, info] of Object.entries(services)) {
      if (info.eventStore === false) continue;
      // The checkpoints table comes with the service's first start, whichever store holds its events.
      const exists = await client.query('SELECT to_regclass($1) AS checkpoints', [`${info.schema}.projection_checkpoints`]);
      if (!exists.rows[0].checkpoints) {
        if (!asJson) console.log(`${bold(service)}  ${dim('no event store yet (the service has not started on this database)')}\n`);
        continue;
      }
      const choice = eventStoreChoiceFrom(service, process.env);
      const head = await headOf(service, info.schema);
      const columns = (
        await client.query(
          `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'projection_checkpoints'`,
          [info.schema],
        )
      ).rows.map((row) => row.column_name as string);
      const extra = columns.includes('halted_at') ? ', halted_at, last_error, last_error_at, last_error_event' : '';
      const rows = (
        await client.query<CheckpointRow>(
          `SELECT name, position, updated_at${extra} FROM ${info.schema}.projection_checkpoints ORDER BY name`,
        )
      ).rows;
      const outbox = (
        await client.query<{ name: string; position: string }>(`SELECT name, position FROM ${info.schema}.outbox_checkpoints ORDER BY name`)
      ).rows;
      halted += rows.filter((row) => row.halted_at).length;
      if (asJson) {
        console.log(
          JSON.stringify({
            service,
            eventStore: describeEventStore(choice),
            head: head.toString(),
            projections: rows,
            outbox: outbox.map((row) => ({ ...row, lag: (head - BigInt(row.position)).toString() })),
          }),
        );
        continue;
      }
      console.log(`${bold(service)}  ${dim(`head ${head}  (${describeEventStore(choice)})`)}`);
      for (const row of rows) {
        const lag = head - BigInt(row.position);
        const state = row.halted_at ? color(31, `HALTED since ${row.halted_at.toISOString()}`) : lag === 0n ? 'at head' : `${lag} behind`;
        console.log(`  ${row.name.padEnd(28)} position ${String(row.position).padStart(10)}  ${state}`);
        if (row.last_error) {
          const event = row.last_error_event
            ? ` on ${row.last_error_event.type} of ${row.last_error_event.streamId} (position ${row.last_error_event.position})`
            : '';
          console.log(dim(`    last error ${row.last_error_at?.toISOString() ?? ''}${event}: ${row.last_error}`));
        }
      }
      for (const row of outbox)
        console.log(
          `  ${`outbox ${row.name}`.padEnd(28)} ` +
            (`position ${String(row.position).padStart(10)}` +
              `  ${head - BigInt(row.position) === 0n ? 'at head' : `${head - BigInt(row.position)} behind`}`),
        );
      console.log('');
    }
  } finally {
    await client.end();
  }
  // A halted read model is a failure an operator's script should notice.
  if (halted > 0) process.exitCode = 2;
};

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  if (args.includes('--status')) return printStatus(args.includes('--json'));
  const rebuildAt = args.indexOf('--rebuild');
  if (rebuildAt >= 0) return rebuild(args[rebuildAt + 1] ?? '', args);
  const streamId = args.find((arg) => !arg.startsWith('--'));
  if (!streamId) throw new Error(usage);
  return printStream(streamId, args.includes('--json'));
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
