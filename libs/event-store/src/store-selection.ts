import type { Pool } from 'pg';
import { createKurrentDbEventStore } from './kurrentdb-event-store';
import { createPostgresEventStore } from './postgres-event-store';
import type { EventStore, Upcasters } from './types';

/**
 * Which adapter of the port a service's events live in (docs/decisions/0036). PostgreSQL is the
 * default; KurrentDB is chosen per service, each service in streams of its own category.
 */
export type EventStoreChoice = { kind: 'postgres' } | { kind: 'kurrentdb'; url: string; streamPrefix: string };

export const EVENT_STORE_KINDS = ['postgres', 'kurrentdb'] as const;

/** A service name is a KurrentDB category: the part of a stream name before its first '-'. */
const SERVICE_NAME = /^[a-z][a-z0-9_]*$/;

/** `<service>-`: the service's streams form the category `<service>` ($ce-<service>) and nothing else does. */
export const serviceStreamPrefix = (service: string): string => {
  if (!SERVICE_NAME.test(service))
    throw new Error(`A service name is lower case letters, digits and '_' (a KurrentDB category), got "${service}".`);
  return `${service}-`;
};

/**
 * EVENT_STORE_<SERVICE> (e.g. EVENT_STORE_ACCOUNTS) names one service's store, so a deployment whose
 * services share one environment can move them one at a time; EVENT_STORE names every other's.
 * kurrentdb needs EVENTSTORE_URL; EVENTSTORE_STREAM_PREFIX, when set, goes before the service's
 * prefix (several deployments, or test runs, on one server).
 */
export const eventStoreChoiceFrom = (service: string, env: NodeJS.ProcessEnv): EventStoreChoice => {
  const own = `EVENT_STORE_${service.toUpperCase()}`;
  const variable = env[own] ? own : 'EVENT_STORE';
  const kind = env[variable] || 'postgres';
  if (kind === 'postgres') return { kind };
  if (kind !== 'kurrentdb') throw new Error(`${variable} must be one of ${EVENT_STORE_KINDS.join(', ')}, got "${kind}".`);
  const url = env['EVENTSTORE_URL'];
  if (!url) throw new Error(`${variable}=kurrentdb needs EVENTSTORE_URL (e.g. kurrentdb://127.0.0.1:2113?tls=false).`);
  return { kind, url, streamPrefix: `${env['EVENTSTORE_STREAM_PREFIX'] ?? ''}${serviceStreamPrefix(service)}` };
};

export type ServiceEventStoreOptions = {
  choice: EventStoreChoice;
  /** PostgreSQL still holds the service's read models, checkpoints and snapshots whichever store holds its events. */
  connectionString: string;
  schema: string;
  pool?: Pool;
  upcasters?: Upcasters;
  /** PostgreSQL only: create the store's tables on first use (default true); a read-only tool passes false. */
  ensureSchema?: boolean;
};

/** The one place a service's store is built: the services, `npm run replay` and `npm run eventstore:copy` all come here. */
export const createServiceEventStore = (options: ServiceEventStoreOptions): EventStore => {
  const { choice, connectionString, schema, pool, upcasters, ensureSchema } = options;
  if (choice.kind === 'kurrentdb') {
    return createKurrentDbEventStore({
      connectionString: choice.url,
      streamPrefix: choice.streamPrefix,
      ...(upcasters ? { upcasters } : {}),
    });
  }
  return createPostgresEventStore({
    connectionString,
    schema,
    ...(pool ? { pool } : {}),
    ...(upcasters ? { upcasters } : {}),
    ...(ensureSchema === false ? { ensureSchema } : {}),
  });
};

/** What /health and the logs say of the store, never the URL's credentials. */
export const describeEventStore = (choice: EventStoreChoice): string => {
  if (choice.kind === 'postgres') return 'postgres';
  // A connection string may list several hosts, so it is trimmed rather than parsed as one URL.
  const where = choice.url.replace(/\/\/[^@/]*@/, '//').split('?')[0];
  return `kurrentdb ${where} streams ${choice.streamPrefix}*`;
};
