import { ensureEventStoreSchema, migrate } from '@corridor/event-store';
import { databaseUrl, services } from './services';

// Creates each service's event store and read-model tables. Services run the same at start-up;
// running it first lets an operator see migration failures before anything serves traffic.
const main = async (): Promise<void> => {
  const connectionString = databaseUrl();
  for (const [service, info] of Object.entries(services)) {
    if (info.eventStore !== false) await ensureEventStoreSchema(connectionString, info.schema);
    const applied = await migrate({ connectionString, schema: info.schema, directory: info.migrations });
    console.log(
      `${service}: ${info.eventStore !== false ? 'event store ready; ' : ''}` +
        `${applied.length ? `applied ${applied.join(', ')}` : 'tables up to date'}`,
    );
  }
};

main().catch((error: unknown) => {
  console.error(`migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
