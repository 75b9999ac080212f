// The health server every service gets from createServiceApp: liveness, readiness from the parts
// registered in the process's Observability (NATS by the messaging layer, PostgreSQL and Redis by
// the app, against the real local servers), and /metrics with process metrics plus each source.
import { type INestMicroservice, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { Counter, Registry } from 'prom-client';
import { OBSERVABILITY, type Observability, type PartHealth } from '@corridor/contracts';
import { freePort, requireNats, requireRedis, testUrls, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { createServiceApp, observedPart, postgresHealth, redisHealth } from './index';

const database = useTestDatabase();

/** A part the test sets by hand, standing for a projection that halts. */
let projections: PartHealth = { status: 'ok' };
const POOL = 'POOL';
const REDIS = 'REDIS';
const sourceRegistry = new Registry();
const sourceCounter = new Counter({
  name: 'corridor_test_source_total',
  help: 'A metric of a registered source.',
  registers: [sourceRegistry],
});

let pool: Pool;
let redis: Redis;
let app: INestMicroservice;
let base: string;

beforeAll(async () => {
  await Promise.all([requireNats(), requireRedis()]);
  pool = new Pool({ connectionString: database.url, max: 1 });
  redis = new Redis(testUrls.redis(), { maxRetriesPerRequest: 1 });
  @Module({
    providers: [
      { provide: POOL, useValue: pool },
      { provide: REDIS, useValue: redis },
      observedPart('postgres', [POOL], (p: Pool) => postgresHealth(() => p.query('SELECT 1'))),
      observedPart('redis', [REDIS], (client: Redis) => redisHealth(() => client)),
      observedPart('projections', [], () => () => projections),
    ],
  })
  class PartsModule {}
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await createServiceApp(PartsModule, {
    service: 'probe',
    natsUrl: testUrls.nats(),
    subjectPrefix: uniqueSubjectPrefix(),
    healthPort: port,
    logLevel: 'silent',
  });
  app.get<Observability>(OBSERVABILITY).addMetrics(sourceRegistry);
  await app.listen();
});

afterAll(async () => {
  await app?.close();
  redis?.disconnect();
  await pool?.end();
});

beforeEach(() => {
  projections = { status: 'ok' };
});

const get = async (path: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${base}${path}`);
  const text = await response.text();
  return { status: response.status, body: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
};

it('reports every part ok against the real NATS, PostgreSQL and Redis', async () => {
  const health = await get('/health');
  expect(health.status).toBe(200);
  expect(health.body).toMatchObject({
    service: 'probe',
    status: 'ok',
    parts: { nats: { status: 'ok' }, postgres: { status: 'ok' }, redis: { status: 'ok' }, projections: { status: 'ok' } },
  });
  expect(await get('/health/ready')).toEqual({ status: 200, body: { service: 'probe', status: 'ok' } });
  expect(await get('/health/live')).toEqual({ status: 200, body: { service: 'probe', status: 'ok' } });
});

it('stays ready when a part is degraded, and names the part with its details', async () => {
  projections = { status: 'degraded', halted: 'internal-accounts', position: 41, error: 'row.createdAt.toISOString is not a function' };
  expect((await get('/health/ready')).status).toBe(200);
  const health = await get('/health');
  expect(health.status).toBe(200);
  expect(health.body.status).toBe('degraded');
  expect(health.body.parts.projections).toEqual(projections);
  expect(health.body.parts.postgres.status).toBe('ok');
});

it('answers 503 on ready when a part is down, while liveness stays 200', async () => {
  projections = { status: 'down', error: 'the event store is unreachable' };
  expect(await get('/health/ready')).toEqual({ status: 503, body: { service: 'probe', status: 'down' } });
  const health = await get('/health');
  expect(health.status).toBe(503);
  expect(health.body.parts.projections).toEqual({ status: 'down', error: 'the event store is unreachable' });
  expect((await get('/health/live')).status).toBe(200);
});

it('reports PostgreSQL down when its pool cannot reach the server', async () => {
  // Replaces the part by name, as libs/event-store's own postgres part will.
  const unreachable = new Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
  unreachable.on('error', () => undefined);
  const observability = app.get<Observability>(OBSERVABILITY);
  observability.addPart({ name: 'postgres', health: postgresHealth(() => unreachable.query('SELECT 1')) });
  try {
    const health = await get('/health');
    expect(health.status).toBe(503);
    expect(health.body.parts.postgres).toMatchObject({ status: 'down', error: expect.any(String) });
    expect((await get('/health/ready')).status).toBe(503);
  } finally {
    observability.addPart({ name: 'postgres', health: postgresHealth(() => pool.query('SELECT 1')) });
    await unreachable.end();
  }
  expect((await get('/health/ready')).status).toBe(200);
});

it('serves the process metrics, the consumers counters and every registered source on /metrics', async () => {
  sourceCounter.inc(3);
  const metrics = await get('/metrics');
  expect(metrics.status).toBe(200);
  expect(metrics.body).toMatch(/^process_cpu_user_seconds_total \d/m);
  expect(metrics.body).toMatch(/^nodejs_eventloop_lag_seconds /m);
  expect(metrics.body).toMatch(/^corridor_test_source_total 3$/m);
  expect(metrics.body).toContain('# HELP corridor_consumer_redeliveries_total');
});

it('answers 404 with the paths it serves', async () => {
  const reply = await get('/healthz');
  expect(reply.status).toBe(404);
  expect(reply.body.message).toContain('/health/ready');
});
