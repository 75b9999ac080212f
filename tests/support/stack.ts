import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import { type CreatePlatformReply, newUuid, type PlatformEnvironment, subjects } from '@corridor/contracts';
import { MessagingModule, ServiceClient } from '@corridor/messaging';
import { createTestDatabase, requireNats, requirePostgres, requireRedis, type TestDatabase, uniqueRedisPrefix, uniqueSubjectPrefix } from '@corridor/testing';

// The whole of Corridor for one end-to-end suite: its own database, NATS subject prefix, Redis
// key prefix and ports, with every app started as its own process the way an operator runs them.

export type AppName = 'platform' | 'customers' | 'accounts' | 'payments' | 'webhooks' | 'gateway';
const apps: AppName[] = ['platform', 'customers', 'accounts', 'payments', 'webhooks', 'gateway'];
const root = join(__dirname, '../..');

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms.`);
};

export type Stack = {
  baseUrl: string;
  gatewayUrl: string;
  database: TestDatabase;
  subjectPrefix: string;
  env: Record<string, string>;
  logs: Record<AppName, string[]>;
  start(app: AppName): Promise<void>;
  stop(app: AppName): Promise<void>;
  /** kill -9: no shutdown hooks, no draining, as a crash. */
  kill(app: AppName): Promise<void>;
  healthUrl(app: AppName): string;
  createPlatform(environment?: PlatformEnvironment): Promise<CreatePlatformReply>;
  close(): Promise<void>;
};

export type StackOptions = {
  env?: Record<string, string>;
  /** Settings for one app only (e.g. the webhooks service on a throwaway Redis). */
  appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** A subset of the apps, in start order (default: all); without the gateway there is no HTTP API. */
  apps?: AppName[];
};

export const startStack = async (options: StackOptions = {}): Promise<Stack> => {
  await Promise.all([requirePostgres(), requireNats(), requireRedis()]);
  const database = await createTestDatabase();
  const subjectPrefix = uniqueSubjectPrefix();
  // Uploads of this stack only: the gateway writes them, the customers service reads them.
  const blobDirectory = await mkdtemp(join(tmpdir(), 'corridor-e2e-blobs-'));
  const [gatewayPort, platformHealth, customersHealth, accountsHealth, paymentsHealth, webhooksHealth] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    NATS_URL: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    REDIS_URL: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379',
    CORRIDOR_SUBJECT_PREFIX: subjectPrefix,
    REDIS_KEY_PREFIX: uniqueRedisPrefix(),
    PORT: String(gatewayPort),
    LOG_LEVEL: 'warn',
    // The suites send bursts far above a real client's; the limiter has its own tests in the gateway.
    RATE_LIMIT_REQUESTS: '1000000',
    BLOB_STORE: 'local',
    BLOB_DIR: blobDirectory,
    ...options.env,
  };
  const healthPorts: Record<AppName, number> = { platform: platformHealth, customers: customersHealth, accounts: accountsHealth, payments: paymentsHealth, webhooks: webhooksHealth, gateway: gatewayPort };
  const processes = new Map<AppName, ChildProcess>();
  const logs: Record<AppName, string[]> = { platform: [], customers: [], accounts: [], payments: [], webhooks: [], gateway: [] };
  const healthUrl = (app: AppName): string => (app === 'gateway' ? `${gatewayUrl}/health` : `http://127.0.0.1:${healthPorts[app]}/health`);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  let bootstrap: INestApplicationContext | undefined;

  const start = async (app: AppName): Promise<void> => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(root, `apps/${app}/src/main.ts`)], {
      cwd: root,
      env: { ...process.env, ...env, ...options.appEnv?.[app], HEALTH_PORT: String(healthPorts[app]) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      logs[app].push(chunk.toString());
      if (logs[app].length > 500) logs[app].shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    processes.set(app, child);
    const url = healthUrl(app);
    try {
      await waitFor(`${app} (${url})`, async () => {
        if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
        return (await fetch(url)).status < 500 || app === 'gateway';
      }, 60_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- ${app} output ---\n${logs[app].join('')}`);
    }
  };

  const stop = async (app: AppName): Promise<void> => {
    const child = processes.get(app);
    processes.delete(app);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const kill = async (app: AppName): Promise<void> => {
    const child = processes.get(app);
    processes.delete(app);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  const createPlatform = async (environment: PlatformEnvironment = 'SANDBOX'): Promise<CreatePlatformReply> => {
    bootstrap ??= await NestFactory.createApplicationContext(
      MessagingModule.forRoot({ natsUrl: env['NATS_URL']!, subjectPrefix, name: 'e2e-bootstrap' }),
      { logger: ['error'] },
    );
    await bootstrap.init();
    const requestId = newUuid();
    return bootstrap.get(ServiceClient).request<CreatePlatformReply>(
      subjects.platform.platform.create,
      { name: `e2e ${environment.toLowerCase()} ${requestId.slice(-6)}`, environment },
      { context: { platformId: '', actor: { kind: 'system', name: 'e2e' }, requestId, correlationId: requestId }, timeoutMs: 15_000 },
    );
  };

  const close = async (): Promise<void> => {
    await bootstrap?.close();
    await Promise.all(apps.map(stop));
    await database.drop();
    await rm(blobDirectory, { recursive: true, force: true });
  };

  try {
    // Services first so the gateway's health check sees them; platform before customers, which asks it for settings.
    for (const app of options.apps ?? apps) await start(app);
    if ((options.apps ?? apps).includes('gateway')) {
      await waitFor('gateway health', async () => (await fetch(`${gatewayUrl}/health`)).status === 200, 30_000);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { baseUrl: `${gatewayUrl}/2025-10-13`, gatewayUrl, database, subjectPrefix, env, logs, start, stop, kill, healthUrl, createPlatform, close };
};
