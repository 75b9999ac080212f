import { Client } from 'pg';
import { listDeadLetters, resolveDeadLetters } from '@corridor/event-store';
import { databaseUrl, services } from './services';

// The operator's handle on outbox dead letters (integration events a service's relay set aside
// after OUTBOX_MAX_ATTEMPTS tries, so later events kept flowing):
//   npm run outbox:dead-letters -- list [--all] [service]       open ones (--all: retried and skipped too)
//   npm run outbox:dead-letters -- retry <service> <position|all>  the service's relay publishes it again within a second
//   npm run outbox:dead-letters -- skip <service> <position|all>   given up for good (its consumers never see it)
// Only PostgreSQL is touched (DATABASE_URL): the running service carries out a retry with its own
// mapping and bus credentials, and /health stays degraded until every dead letter is retried or skipped.

const eventSourced = (): string[] =>
  Object.entries(services)
    .filter(([, info]) => info.eventStore !== false)
    .map(([name]) => name);

const usage = `usage:
  npm run outbox:dead-letters -- list [--all] [service]
  npm run outbox:dead-letters -- retry <service> <position|all>
  npm run outbox:dead-letters -- skip <service> <position|all>
services: ${eventSourced().join(', ')}`;

const schemaOf = (service: string | undefined): string => {
  const info = service && eventSourced().includes(service) ? services[service] : undefined;
  if (!info) throw new Error(`Unknown service "${service ?? ''}".\n${usage}`);
  return info.schema;
};

const hasTable = async (client: Client, schema: string): Promise<boolean> =>
  (await client.query('SELECT to_regclass($1) AS table', [`${schema}.outbox_dead_letters`])).rows[0].table !== null;

const list = async (client: Client, args: string[]): Promise<void> => {
  const all = args.includes('--all');
  const named = args.filter((arg) => arg !== '--all');
  for (const service of named) schemaOf(service);
  const wanted = named.length > 0 ? named : eventSourced();
  let shown = 0;
  for (const service of wanted) {
    const schema = schemaOf(service);
    if (!(await hasTable(client, schema))) continue;
    for (const letter of await listDeadLetters(client, schema, { all })) {
      shown += 1;
      process.stdout.write(`${JSON.stringify({ service, ...letter })}\n`);
    }
  }
  if (shown === 0) process.stderr.write(all ? 'No dead letters.\n' : 'No open dead letters.\n');
};

const resolve = async (client: Client, action: 'retry' | 'skip', args: string[]): Promise<void> => {
  const [service, position] = args;
  const schema = schemaOf(service);
  if (!position || !(position === 'all' || /^\d{1,19}$/.test(position))) throw new Error(`Name a position (from list) or "all".\n${usage}`);
  const changed = (await hasTable(client, schema)) ? await resolveDeadLetters(client, schema, `${service}-outbox`, position, action) : 0;
  if (changed === 0) throw new Error(`No open dead letter of ${service} at ${position}.`);
  process.stdout.write(
    action === 'retry'
      ? `${changed} dead letter(s) of ${service} marked for retry; the service's relay publishes them within a second.\n`
      : `${changed} dead letter(s) of ${service} skipped.\n`,
  );
};

const main = async (): Promise<void> => {
  const [command, ...args] = process.argv.slice(2);
  if (command !== 'list' && command !== 'retry' && command !== 'skip') throw new Error(usage);
  const client = new Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    if (command === 'list') await list(client, args);
    else await resolve(client, command, args);
  } finally {
    await client.end();
  }
};

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
