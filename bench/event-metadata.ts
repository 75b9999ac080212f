import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import type { AppendMetadata } from '@corridor/event-store';
import { createTestDatabase } from '@corridor/testing';
import { CEILING_SECONDS, measureAppend, type Rate } from './ceilings';

// What the trace metadata costs an append (issue 24): every event now carries a causationId and,
// while tracing is on, the W3C traceparent (and a tracestate when a vendor sets one). This appends
// one FundsHeld-shaped event at a time to the real PostgreSQL store, exactly as the bare-append
// ceiling does, with the metadata as the services write it ("full") and without those fields
// ("lean", which is the bare-append ceiling itself), alternating lean, full, lean, full … because the
// machine is shared; then it reads the stored size of each variant's metadata back from PostgreSQL.
//   node -r @swc-node/register bench/event-metadata.ts   BENCH_METADATA_ROUNDS=2 (pairs per writer count), BENCH_CEILING_SECONDS=8

const ROUNDS = Number(process.env['BENCH_METADATA_ROUNDS'] ?? 2);

const lean = (): AppendMetadata => ({
  platformId: `Platform:${randomUUID()}`,
  correlationId: randomUUID(),
  requestId: randomUUID(),
  actor: { kind: 'token', tokenId: `ApiToken:${randomUUID()}` },
});

/** As a service under tracing writes it: the cause and the active span's context. */
const full = (): AppendMetadata => ({
  ...lean(),
  causationId: randomUUID(),
  traceparent: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`,
});

type Variant = { name: 'lean' | 'full'; schema: string; metadata: () => AppendMetadata };
const variants: Variant[] = [
  { name: 'lean', schema: 'bench_metadata_lean', metadata: lean },
  { name: 'full', schema: 'bench_metadata_full', metadata: full },
];

const storedBytes = async (url: string, schema: string): Promise<{ metadata: number; row: number }> => {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ metadata: string; row: string }>(
      `SELECT round(avg(pg_column_size(metadata)))::text AS metadata, round(avg(pg_column_size(e.*)))::text AS row FROM ${schema}.events e`,
    );
    return { metadata: Number(rows[0]?.metadata ?? 0), row: Number(rows[0]?.row ?? 0) };
  } finally {
    await client.end();
  }
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const main = async (): Promise<void> => {
  const database = await createTestDatabase(undefined, 'corridor_bench_');
  try {
    console.log(
      `load average before: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}; ${CEILING_SECONDS} s phases, ${ROUNDS} rounds`,
    );
    const results: Record<string, Rate[]> = {};
    for (const writers of [1, 8]) {
      for (let round = 1; round <= ROUNDS; round += 1) {
        for (const variant of variants) {
          const rate = await measureAppend(database.url, writers, CEILING_SECONDS, {
            schema: variant.schema,
            metadata: variant.metadata(),
          });
          (results[`${variant.name}/${writers}`] ??= []).push(rate);
          console.log(
            `  ${writers} writer(s) round ${round} ${variant.name}: ${rate.perSecond}/s, p50 ${rate.p50Ms} ms, p99 ${rate.p99Ms} ms`,
          );
        }
      }
    }
    const bytes = Object.fromEntries(
      await Promise.all(variants.map(async (v) => [v.name, await storedBytes(database.url, v.schema)] as const)),
    );
    console.log(
      `load average after: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')}`,
    );
    console.log('\nvariant   stored metadata B/event   row B/event   1 writer appends/s (median)   8 writers appends/s (median)');
    for (const variant of variants) {
      const rate = (writers: number) => median((results[`${variant.name}/${writers}`] ?? []).map((r) => r.perSecond));
      console.log(
        `${variant.name.padEnd(9)} ${String(bytes[variant.name]!.metadata).padStart(23)}` +
          ` ${String(bytes[variant.name]!.row).padStart(13)} ${String(rate(1)).padStart(29)} ${String(rate(8)).padStart(30)}`,
      );
    }
    const ratio = (writers: number) =>
      median((results[`full/${writers}`] ?? []).map((r) => r.perSecond)) /
      median((results[`lean/${writers}`] ?? []).map((r) => r.perSecond));
    console.log(
      `full ÷ lean (lean = the bare-append ceiling of this run): 1 writer ${(100 * ratio(1)).toFixed(1)} %, 8 ` +
        `writers ${(100 * ratio(8)).toFixed(1)} %`,
    );
  } finally {
    await database.drop();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
