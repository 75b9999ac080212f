// The batched statements of the delivery log on a real PostgreSQL: a batch claim takes each due
// head once (also against a concurrent claim of the same ids) and never two webhooks of one
// resource; a batch record writes every attempt with its row's state and says which resources
// still have a webhook pending; the next-head look-up finds exactly the heads that may go now.
import { join } from 'node:path';
import { Pool } from 'pg';
import { inTransaction, migrate } from '@corridor/event-store';
import { useTestDatabase } from '@corridor/testing';
import { claimDeliveries, dueBacklog, insertDeliveries, listAttempts, type NewDelivery, nextHeads, recordAttempts } from './delivery-store';

const database = useTestDatabase();
const now = new Date('2026-02-01T00:00:00.000Z');
const lease = new Date(now.getTime() + 15_000);
let pool: Pool;
let sequence = 0;

beforeAll(async () => {
  await migrate({ connectionString: database.url, schema: 'webhooks', directory: join(__dirname, '../migrations') });
  pool = new Pool({ connectionString: database.url, max: 4 });
});

afterAll(async () => {
  await pool?.end();
});

/** Pending deliveries of one resource at the given stream positions; returns their ids in order. */
const pending = async (platformId: string, resourceId: string, positions: number[]): Promise<string[]> => {
  const rows: NewDelivery[] = positions.map((streamPosition) => {
    sequence += 1;
    return {
      id: `Webhook:${platformId}-${resourceId}-${sequence}`,
      eventId: `event-${platformId}-${sequence}`,
      platformId,
      type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED',
      resourceId,
      streamPosition,
      body: '{}',
      retried: true,
      occurredAt: now.toISOString(),
      story: { correlationId: `story-${platformId}`, causationId: `event-${platformId}-${sequence}` },
    };
  });
  await inTransaction(pool, (client) => insertDeliveries(client, rows, now));
  return rows.map((row) => row.id);
};

const delivered = (id: string, attempt = 1) => ({
  id,
  attempt: { attempt, at: now, url: 'http://127.0.0.1:1/hook', statusCode: 200, latencyMs: 3 },
  outcome: { status: 'DELIVERED' as const },
  now,
});

it('claims each due head of a batch once, and only the first pending webhook of a resource', async () => {
  const [a1, a2] = await pending('P1', 'A', [2, 3]);
  const [b1] = await pending('P1', 'B', [2]);
  const claimed = await claimDeliveries(pool, [a2!, a1!, b1!], now, lease);
  expect(claimed.map((row) => row.id).sort()).toEqual([a1, b1].sort());
  expect(claimed.every((row) => row.attempt_count === 1)).toBe(true);
  // An attempt takes its webhook's story from the claimed row.
  expect(claimed.find((row) => row.id === a1)).toMatchObject({
    correlation_id: 'story-P1',
    causation_id: expect.stringMatching(/^event-P1-/),
    traceparent: null,
  });
  // Offered again (a duplicate job): leased, so nothing to claim.
  expect(await claimDeliveries(pool, [a1!, a2!, b1!], now, lease)).toEqual([]);
});

it('gives a delivery to one of two concurrent claims of the same batch', async () => {
  const ids = [...(await pending('P2', 'A', [2])), ...(await pending('P2', 'B', [2])), ...(await pending('P2', 'C', [2]))];
  const [left, right] = await Promise.all([claimDeliveries(pool, ids, now, lease), claimDeliveries(pool, ids, now, lease)]);
  const all = [...left!, ...right!].map((row) => row.id).sort();
  expect(all).toEqual([...ids].sort());
});

it('records a batch of attempts in one statement and tells which resources have more pending', async () => {
  const [a1, a2] = await pending('P3', 'A', [2, 3]);
  const [b1] = await pending('P3', 'B', [2]);
  const [c1] = await pending('P3', 'C', [2]);
  await claimDeliveries(pool, [a1!, b1!, c1!], now, lease);
  const retryAt = new Date(now.getTime() + 10_000);
  const recorded = await recordAttempts(pool, [
    delivered(a1!),
    delivered(b1!),
    {
      id: c1!,
      attempt: { attempt: 1, at: now, url: 'http://127.0.0.1:1/hook', latencyMs: 1, error: 'ECONNREFUSED' },
      outcome: { status: 'PENDING', nextAttemptAt: retryAt },
      now,
    },
  ]);
  expect(Object.fromEntries(recorded.map((row) => [row.id, row.morePending]))).toEqual({ [a1!]: true, [b1!]: false, [c1!]: false });
  expect(await listAttempts(pool, a1!)).toEqual([
    { attempt: 1, at: now.toISOString(), url: 'http://127.0.0.1:1/hook', statusCode: 200, latencyMs: 3 },
  ]);
  expect(await listAttempts(pool, c1!)).toEqual([
    { attempt: 1, at: now.toISOString(), url: 'http://127.0.0.1:1/hook', latencyMs: 1, error: 'ECONNREFUSED' },
  ]);
  const rows = (
    await pool.query<{ id: string; status: string; lease_until: Date | null; next_attempt_at: Date; delivered_at: Date | null }>(
      'SELECT id, status, lease_until, next_attempt_at, delivered_at FROM webhooks.deliveries WHERE id = ANY($1)',
      [[a1, b1, c1]],
    )
  ).rows;
  expect(rows.find((row) => row.id === a1)).toMatchObject({ status: 'DELIVERED', lease_until: null, delivered_at: now });
  expect(rows.find((row) => row.id === c1)).toMatchObject({ status: 'PENDING', lease_until: null, next_attempt_at: retryAt });
  // Next heads: A's second webhook is due now; C's head is waiting for its retry time; B has none.
  const heads = await nextHeads(pool, now, [
    { platformId: 'P3', resourceId: 'A' },
    { platformId: 'P3', resourceId: 'B' },
    { platformId: 'P3', resourceId: 'C' },
  ]);
  expect(heads.map((head) => head.id)).toEqual([a2]);
  expect((await nextHeads(pool, retryAt, [{ platformId: 'P3', resourceId: 'C' }])).map((head) => head.id)).toEqual([c1]);
});

it('measures the longest wait of a sendable webhook: from its due time, or from the end of the one before it', async () => {
  await pool.query('DELETE FROM webhooks.delivery_attempts; DELETE FROM webhooks.deliveries');
  const at = (seconds: number) => new Date(now.getTime() + seconds * 1_000);
  expect(await dueBacklog(pool, at(90))).toEqual({ dueHeads: 0, oldestWaitSeconds: 0, oldestId: null });
  const [a1, a2] = await pending('P4', 'A', [1, 2]);
  const [b1] = await pending('P4', 'B', [1]);
  // Both heads due since `now`, never sent: 90 s each, A's first named (the earliest due).
  expect(await dueBacklog(pool, at(90))).toMatchObject({ dueHeads: 2, oldestWaitSeconds: 90 });
  // A's first went out at 89 s: its second became sendable then, so it has waited 1 s, not 90.
  await claimDeliveries(pool, [a1!, b1!], now, at(100));
  expect(await dueBacklog(pool, at(5))).toEqual({ dueHeads: 0, oldestWaitSeconds: 0, oldestId: null });
  await recordAttempts(pool, [{ ...delivered(a1!), now: at(89) }]);
  expect(await dueBacklog(pool, at(90))).toEqual({ dueHeads: 1, oldestWaitSeconds: 1, oldestId: a2 });
  // A leased head (an attempt under way) is not waiting; once its lease ends it is again.
  expect(await dueBacklog(pool, at(101))).toMatchObject({ dueHeads: 2, oldestId: b1 });
});
