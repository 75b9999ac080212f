import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { createServiceApp, ServiceClient, type ServiceConfig } from '@corridor/messaging';
import { requireNats, uniqueSubjectPrefix, useTestDatabase } from './infra';
import { deleteEventsStream } from './service-calls';

// One service in process on real PostgreSQL and NATS, as its integration specs start it: its config as
// its loadConfig reads it, on the spec file's own database and a subject prefix unique to the run, with
// quiet logs and no health port.

export type ServiceUnderTest<Config extends ServiceConfig> = {
  service: string;
  /** The service's config as its loadConfig reads it (with the env the spec needs). */
  defaults: Config;
  /** What the spec sets beyond the harness, e.g. sweeps far beyond the test so that the test runs each sweep itself. */
  overrides?: Partial<Config>;
  module: (config: Config) => DynamicModule;
};

/** Starts the service on the given database and subject prefix and has it listen; the caller closes it. */
export const startServiceApp = async <Config extends ServiceConfig>(
  under: ServiceUnderTest<Config>,
  place: { databaseUrl: string; subjectPrefix: string },
): Promise<INestMicroservice> => {
  const config: Config = { ...under.defaults, healthPort: 0, logLevel: 'warn', ...place, ...under.overrides };
  const app = await createServiceApp(under.module(config), {
    service: under.service,
    natsUrl: config.natsUrl,
    subjectPrefix: place.subjectPrefix,
    logLevel: 'warn',
  });
  await app.listen();
  return app;
};

export type ServiceHarness = {
  readonly app: INestMicroservice;
  readonly client: ServiceClient;
  readonly subjectPrefix: string;
  readonly databaseUrl: string;
};

/**
 * One app of the service for a whole spec file: call it at the top of the file. The app starts before
 * the file's tests on a database of its own (useTestDatabase) and a unique subject prefix; after them it
 * is closed and the prefix's events stream deleted.
 */
export const useServiceApp = <Config extends ServiceConfig>(under: ServiceUnderTest<Config>): ServiceHarness => {
  const database = useTestDatabase();
  let subjectPrefix: string | undefined;
  let app: INestMicroservice | undefined;
  beforeAll(async () => {
    await requireNats();
    subjectPrefix = uniqueSubjectPrefix();
    app = await startServiceApp(under, { databaseUrl: database.url, subjectPrefix });
  });
  afterAll(async () => {
    await app?.close();
    if (subjectPrefix) await deleteEventsStream(subjectPrefix);
  });
  const current = (): { app: INestMicroservice; subjectPrefix: string } => {
    if (!app || !subjectPrefix)
      throw new Error(`useServiceApp(${under.service}): the app exists only inside hooks and tests, once started.`);
    return { app, subjectPrefix };
  };
  return {
    get app() {
      return current().app;
    },
    get client() {
      return current().app.get(ServiceClient);
    },
    get subjectPrefix() {
      return current().subjectPrefix;
    },
    get databaseUrl() {
      return database.url;
    },
  };
};
