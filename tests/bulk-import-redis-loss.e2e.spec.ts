// Nothing stays stuck in bulk imports (issue 22, item 3): Redis loses every key of the stack (its
// own key prefix on the shared server, deleted as FLUSHDB would) while one import is running and a
// second waits in the queue behind it. Written to fail on the code before the sweep, where the
// waiting job had lost its queue entry and stayed PENDING until the customers service restarted.
// Now the sweep queues both again, both finish with every row imported once, the customers service
// logs what it queued again, and its /health and /metrics count it.
import { randomBytes } from 'node:crypto';
import IORedis from 'ioredis';
import { uniqueRedisPrefix, eventually, waitUntil } from '@corridor/testing';
import { createApi, type Credentials, type Reply } from './support/api';
import { type Stack, startStack } from './support/stack';

const redisKeyPrefix = uniqueRedisPrefix();
const header = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country';
const RUNNING_ROWS = 1_500;
const WAITING_ROWS = 200;

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platform: Credentials;
let redis: IORedis;

beforeAll(async () => {
  stack = await startStack({
    env: {
      REDIS_KEY_PREFIX: redisKeyPrefix,
      // Small batches, so the first import is still running when Redis loses its keys.
      BULK_IMPORT_BATCH_ROWS: '25',
      BULK_IMPORT_BATCHES_IN_FLIGHT: '1',
      BULK_IMPORT_SWEEP_INTERVAL_MS: '1000',
      // Light on PostgreSQL connections: the machine's server is shared by several stacks.
      DATABASE_POOL_SIZE: '4',
    },
  });
  api = createApi(stack, 'bulk-import-redis-loss');
  platform = (await stack.createPlatform()).token as Credentials;
  redis = new IORedis(process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  redis?.disconnect();
  await stack?.close();
});

/** Deletes every key of this stack, as FLUSHDB would on a Redis of its own; other suites' keys on the shared server stay. */
const loseRedisKeys = async (): Promise<number> => {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisKeyPrefix}*`, 'COUNT', 1_000);
    if (keys.length > 0) deleted += await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
};

const upload = (content: string) => {
  const boundary = `----corridor${randomBytes(4).toString('hex')}`;
  const rawBody = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(content),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return api.call('POST', '/customers/bulk/csv', { auth: platform, rawBody, contentType: `multipart/form-data; boundary=${boundary}` });
};
const file = (run: string, rows: number) =>
  `${header}\n${Array.from({ length: rows }, (_, index) => `$r${index + 1}.${run}@loss.example.com,r-${run}-${index + 1},INDIVIDUAL,Person ${index + 1},1980-01-15,1 Main St,Springfield,IL,62701,US`).join('\n')}\n`;
const job = (jobId: string): Promise<Reply> => api.call('GET', `/customers/bulk/jobs/${jobId}`, { auth: platform });
const ended = (reply: Reply) => reply.body?.status === 'COMPLETED' || reply.body?.status === 'FAILED';

it('finishes a running and a waiting import after Redis lost every queue key mid-import, each row imported once', async () => {
  const running = await upload(file(randomBytes(4).toString('hex'), RUNNING_ROWS));
  const waiting = await upload(file(randomBytes(4).toString('hex'), WAITING_ROWS));
  expect([running.status, waiting.status]).toEqual([202, 202]);
  const [runningId, waitingId] = [running.body.jobId as string, waiting.body.jobId as string];

  // Mid-import: the first job has recorded progress, the second still waits behind it.
  await waitUntil('the first import under way', async () => (await job(runningId)).body.progress.processed > 0, 60_000);
  expect((await job(waitingId)).body.status).toBe('PENDING');
  expect(await loseRedisKeys()).toBeGreaterThan(0);

  const [first, second] = await Promise.all([
    eventually(() => job(runningId), ended, 120_000),
    eventually(() => job(waitingId), ended, 120_000),
  ]);
  expect(first.body).toMatchObject({
    status: 'COMPLETED',
    progress: { total: RUNNING_ROWS, processed: RUNNING_ROWS, successful: RUNNING_ROWS, failed: 0 },
  });
  expect(second.body).toMatchObject({
    status: 'COMPLETED',
    progress: { total: WAITING_ROWS, processed: WAITING_ROWS, successful: WAITING_ROWS, failed: 0 },
  });
  const customers = await api.call('GET', '/customers?limit=1', { auth: platform });
  expect(customers.body.totalCount).toBe(RUNNING_ROWS + WAITING_ROWS);

  // What the sweep did is in the service's log, its /health and its /metrics.
  expect(stack.logs.customers.join('')).toContain('unfinished bulk import(s) again');
  // The part reports what the last sweep (every second here) counted, so it catches up with the jobs' ends.
  type Health = { parts: Record<string, { requeuedTotal: number; unfinished: number }> };
  const readHealth = async () => (await (await fetch(stack.healthUrl('customers'))).json()) as Health;
  const health = await eventually(readHealth, (body) => body.parts['bulk-imports']?.unfinished === 0, 15_000);
  expect(health.parts['bulk-imports']).toMatchObject({ status: 'ok', unfinished: 0, stuck: 0, requeuedTotal: expect.any(Number) });
  expect(health.parts['bulk-imports']?.requeuedTotal).toBeGreaterThanOrEqual(1);
  const metrics = await (await fetch(stack.healthUrl('customers').replace(/\/health$/, '/metrics'))).text();
  expect(metrics).toMatch(/^corridor_bulk_imports_requeued_total [1-9]/m);
  expect(metrics).toMatch(/^corridor_bulk_imports_stuck 0$/m);
}, 360_000);
