import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { type CreatePlatformReply, newUuid, type PlatformEnvironment, subjects } from '@corridor/contracts';
import { advanceTestClock, MessagingModule, ServiceClient, TEST_CLOCK_FILE } from '@corridor/messaging';
import type { ConnectionOptions } from 'nats';
import { type BusServer, startBusServer } from './bus-server';
import {
  createTestDatabase,
  freePort,
  requirePostgres,
  requireRedis,
  type TestDatabase,
  uniqueRedisPrefix,
  uniqueSubjectPrefix,
} from '@corridor/testing';

// The whole of Corridor for one end-to-end suite: its own database, NATS subject prefix, Redis
// key prefix and ports, with every app started as its own process the way an operator runs them.

export type AppName = 'platform' | 'customers' | 'accounts' | 'payments' | 'webhooks' | 'cards' | 'agents' | 'gateway';
type AppEntry = { name: AppName; healthPort: number | null; database: boolean };
const root = join(__dirname, '../..');
/** The one list of apps in start order (scripts/apps.json), shared with up.sh, down.sh and compose. */
export const appList: AppEntry[] = (JSON.parse(readFileSync(join(root, 'scripts/apps.json'), 'utf8')) as { apps: AppEntry[] }).apps;
const apps: AppName[] = appList.map((app) => app.name);
/** Every app but the gateway: the ones that can run as several replicas behind NATS queue groups. */
export const serviceNames: AppName[] = apps.filter((app) => app !== 'gateway');

export { freePort };

export const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms.`);
};

/**
 * What a suite may use of a stack, whether its own or the shared one (tests/support/shared-stack.ts,
 * decision 0050): addresses, the database and the bus to read and write, new platforms. Stopping,
 * killing or restarting a process needs a Stack of the suite's own.
 */
export type StackView = {
  baseUrl: string;
  gatewayUrl: string;
  /** The gateway's metrics port (GATEWAY_METRICS_PORT): /metrics and its health probes. */
  gatewayMetricsUrl: string;
  database: Pick<TestDatabase, 'name' | 'url'>;
  subjectPrefix: string;
  env: Record<string, string>;
  bus: Pick<BusServer, 'url' | 'envFor' | 'as' | 'harness'>;
  healthUrl(app: AppName, replica?: number): string;
  createPlatform(environment?: PlatformEnvironment): Promise<CreatePlatformReply>;
  /** Ends what this handle opened: the whole stack for a Stack, the handle's own bus connection for the shared one. */
  close(): Promise<void>;
};

export type Stack = StackView & {
  database: TestDatabase;
  /** The stack's own nats-server, with production's users and permissions (decision 0025). */
  bus: BusServer;
  /** Output of every replica of an app (prefixed with `[replica n]` when there are several). */
  logs: Record<AppName, string[]>;
  /** Processes per service (the gateway is always one). */
  replicas: number;
  /** Starts one replica, or every replica of the app that is not running. */
  start(app: AppName, replica?: number): Promise<void>;
  /** SIGTERM (SIGKILL after 10 s) one replica, or every replica of the app. */
  stop(app: AppName, replica?: number): Promise<void>;
  /** kill -9: no shutdown hooks, no draining, as a crash. One replica, or every replica of the app. */
  kill(app: AppName, replica?: number): Promise<void>;
  /** The pid of a running replica (undefined when it is not running). */
  pid(app: AppName, replica?: number): number | undefined;
  /** Stops every process and drops the database, unless it is to be kept for reading after a failure. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
  /**
   * Moves every process's clock ahead by `ms` (expiries, windows and timers on the services' clock);
   * the test's own Date.now() and the stores' timestamps stay on system time. Own stacks only: the
   * shared one keeps system time for every suite (decision 0051).
   */
  advanceClock(ms: number): void;
};

export type StackOptions = {
  env?: Record<string, string>;
  /** Settings for one app only (e.g. the webhooks service on a throwaway Redis). */
  appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** A subset of the apps, in start order (default: all); without the gateway there is no HTTP API. */
  apps?: AppName[];
  /** Every service this many times, each replica with its own HEALTH_PORT (default 1). The gateway stays one process. */
  replicas?: number;
  /** Replicas of some services only (e.g. `{ accounts: 2 }`), overriding `replicas` for them. */
  replicasOf?: Partial<Record<AppName, number>>;
};

const MAX_LOG_CHUNKS = 500;

/** Platforms made as an operator does (platform.create over NATS), through one connection opened on first use. */
export const platformCreator = (options: { natsUrl: string; natsAuth: ConnectionOptions; subjectPrefix: string }) => {
  // The promise, not the context: platforms created at once must share one context, or the ones
  // made by the losers of the race are never closed and keep jest from exiting.
  let bootstrap: Promise<INestApplicationContext> | undefined;
  const createPlatform = async (environment: PlatformEnvironment = 'SANDBOX'): Promise<CreatePlatformReply> => {
    bootstrap ??= NestFactory.createApplicationContext(
      MessagingModule.forRoot({
        natsUrl: options.natsUrl,
        natsAuth: options.natsAuth,
        subjectPrefix: options.subjectPrefix,
        name: 'e2e-bootstrap',
      }),
      { logger: ['error'] },
    ).then(async (context) => context.init());
    const context = await bootstrap;
    const requestId = newUuid();
    return context
      .get(ServiceClient)
      .request<CreatePlatformReply>(
        subjects.platform.platform.create,
        { name: `e2e ${environment.toLowerCase()} ${requestId.slice(-6)}`, environment },
        { context: { platformId: '', actor: { kind: 'system', name: 'e2e' }, requestId, correlationId: requestId }, timeoutMs: 15_000 },
      );
  };
  const close = async (): Promise<void> => {
    // A context that failed to start was reported to the createPlatform that asked for it; nothing to close.
    await bootstrap?.then(
      (context) => context.close(),
      () => undefined,
    );
  };
  return { createPlatform, close };
};

export const startStack = async (options: StackOptions = {}): Promise<Stack> => {
  await Promise.all([requirePostgres(), requireRedis()]);
  const replicas = Math.max(1, Math.floor(options.replicas ?? 1));
  const countOf = (app: AppName): number => (app === 'gateway' ? 1 : Math.max(1, Math.floor(options.replicasOf?.[app] ?? replicas)));
  const database = await createTestDatabase();
  const subjectPrefix = uniqueSubjectPrefix();
  // Uploads of this stack only: the gateway writes them, the customers service reads them.
  const blobDirectory = await mkdtemp(join(tmpdir(), 'corridor-e2e-blobs-'));
  // The stack's clock: every process reads the offset a test moves with advanceClock (no real sleeps for expiries).
  const clockDirectory = await mkdtemp(join(tmpdir(), 'corridor-e2e-clock-'));
  const clockFile = join(clockDirectory, 'offset-ms');
  const gatewayPort = await freePort();
  const gatewayMetricsPort = await freePort();
  const bus = await startBusServer({ subjectPrefix, port: await freePort() });
  const healthPorts = new Map<string, number>();
  const key = (app: AppName, replica: number): string => `${app}#${replica}`;
  for (const app of serviceNames)
    for (let replica = 0; replica < countOf(app); replica += 1) healthPorts.set(key(app, replica), await freePort());
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: bus.url,
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    CORRIDOR_SUBJECT_PREFIX: subjectPrefix,
    REDIS_KEY_PREFIX: uniqueRedisPrefix(),
    PORT: String(gatewayPort),
    GATEWAY_METRICS_PORT: String(gatewayMetricsPort),
    LOG_LEVEL: 'warn',
    // The suites send bursts far above a real client's, all from 127.0.0.1; the limits have their
    // own tests (the gateway's, tests/abuse/auth.e2e.spec.ts).
    RATE_LIMIT_REQUESTS: '1000000',
    RATE_LIMIT_PLATFORM_REQUESTS: '1000000',
    AUTH_FAILURES_PER_ADDRESS: '1000000',
    AUTH_FAILURES_PER_CLIENT: '1000000',
    BLOB_STORE: 'local',
    BLOB_DIR: blobDirectory,
    [TEST_CLOCK_FILE]: clockFile,
    // The suites' webhook receivers listen on loopback, which no deployment reaches without this
    // opt-in; a suite that checks the refusal (tests/abuse/webhooks.e2e.spec.ts) sets it to false.
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...options.env,
  };
  const processes = new Map<string, ChildProcess>();
  const logs = Object.fromEntries(apps.map((app) => [app, [] as string[]])) as Record<AppName, string[]>;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const healthUrl = (app: AppName, replica = 0): string =>
    app === 'gateway' ? `${gatewayUrl}/health` : `http://127.0.0.1:${healthPorts.get(key(app, replica))}/health`;
  const replicaNumbers = (app: AppName): number[] => Array.from({ length: countOf(app) }, (_, index) => index);
  const platforms = platformCreator({ natsUrl: bus.url, natsAuth: bus.as('operator'), subjectPrefix });

  const startOne = async (app: AppName, replica: number): Promise<void> => {
    const running = processes.get(key(app, replica));
    if (running && running.exitCode === null && running.signalCode === null) return;
    const healthPort = app === 'gateway' ? gatewayPort : healthPorts.get(key(app, replica));
    if (healthPort === undefined) throw new Error(`${app} has no replica ${replica} (the stack runs ${countOf(app)}).`);
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, `apps/${app}/src/main.ts`)], {
      cwd: root,
      env: { ...process.env, ...env, ...bus.envFor(app), ...options.appEnv?.[app], HEALTH_PORT: String(healthPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const label = countOf(app) > 1 ? `[replica ${replica}] ` : '';
    const keep = (chunk: Buffer) => {
      logs[app].push(label + chunk.toString());
      if (logs[app].length > MAX_LOG_CHUNKS) logs[app].shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    processes.set(key(app, replica), child);
    const url = healthUrl(app, replica);
    try {
      await waitFor(
        `${app} replica ${replica} (${url})`,
        async () => {
          if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
          return (await fetch(url)).status < 500 || app === 'gateway';
        },
        60_000,
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${app} output ---\n${logs[app].join('')}`);
    }
  };

  const end = async (app: AppName, replica: number, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const child = processes.get(key(app, replica));
    processes.delete(key(app, replica));
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = signal === 'SIGTERM' ? setTimeout(() => child.kill('SIGKILL'), 10_000) : undefined;
    await exited;
    if (timer) clearTimeout(timer);
  };

  const start = async (app: AppName, replica?: number): Promise<void> => {
    for (const number of replica === undefined ? replicaNumbers(app) : [replica]) await startOne(app, number);
  };
  const stop = async (app: AppName, replica?: number): Promise<void> => {
    await Promise.all((replica === undefined ? replicaNumbers(app) : [replica]).map((number) => end(app, number, 'SIGTERM')));
  };
  const kill = async (app: AppName, replica?: number): Promise<void> => {
    await Promise.all((replica === undefined ? replicaNumbers(app) : [replica]).map((number) => end(app, number, 'SIGKILL')));
  };
  const pid = (app: AppName, replica = 0): number | undefined => {
    const child = processes.get(key(app, replica));
    return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
  };

  const close = async (options: { keepDatabase?: boolean } = {}): Promise<void> => {
    await platforms.close();
    await Promise.all(apps.map((app) => stop(app)));
    await bus.close();
    if (!options.keepDatabase) await database.drop();
    await rm(blobDirectory, { recursive: true, force: true });
    await rm(clockDirectory, { recursive: true, force: true });
  };

  try {
    // Services first so the gateway's health check sees them; platform before customers, which asks it for settings.
    for (const app of options.apps ?? apps) await start(app);
    if ((options.apps ?? apps).includes('gateway')) {
      // The gateway is ready when every service answers it; under a loaded machine that can take a
      // while, and when it does not happen the last health answer says which service is missing.
      let lastHealth = 'no answer';
      await waitFor(
        'gateway health',
        async () => {
          const reply = await fetch(`${gatewayUrl}/health`);
          lastHealth = `${reply.status} ${await reply.text()}`;
          return reply.status === 200;
        },
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message} Last /health: ${lastHealth.slice(0, 2_000)}\n--- gateway output ---\n${logs.gateway.join('')}`);
      });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    baseUrl: `${gatewayUrl}/2025-10-13`,
    gatewayUrl,
    gatewayMetricsUrl: `http://127.0.0.1:${gatewayMetricsPort}`,
    database,
    subjectPrefix,
    env,
    bus,
    logs,
    replicas,
    start,
    stop,
    kill,
    healthUrl,
    pid,
    createPlatform: platforms.createPlatform,
    advanceClock: (ms: number) => {
      advanceTestClock(clockFile, ms);
    },
    close,
  };
};
