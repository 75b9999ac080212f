import autocannon from 'autocannon';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { encodeCursor } from '@corridor/contracts';
import { basic } from '../tests/support/api';
import { startStack } from '../tests/support/stack';
import { ceilingsFor } from './ceilings';
import { bareHopCeiling, reportBench } from './report';

// GET /transactions with 100,000 transactions stored for one platform (and 20,000 for another,
// so every query is tenant-scoped for real): p50/p99 at page 1, the middle and the last pages,
// newest-first and oldest-first, and with an account filter. The rows are seeded straight into
// the payments read model (what the projection writes), as complete transfer records.
//   npm run bench:transactions        (BENCH_SECONDS=10, BENCH_CONNECTIONS=8 by default)

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 8);
const ROWS = 100_000;
const OTHER_ROWS = 20_000;
const ACCOUNTS = 100;

type Figures = { requestsPerSecond: number; p50Ms: number; p99Ms: number; maxMs: number; non2xx: number; errors: number };

const measure = async (title: string, options: autocannon.Options): Promise<Figures> => {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const figures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    maxMs: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
  console.log(
    `${title.padEnd(52)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50Ms} ms  p99 ${figures.p99Ms} ` +
      `ms  non-2xx ${figures.non2xx}  errors ${figures.errors}`,
  );
  return figures;
};

/** One INSERT … SELECT: rows i = 1…count, one second apart, spread over ACCOUNTS internal accounts. */
const seed = async (client: Client, platformId: string, count: number, tag: string): Promise<void> => {
  await client.query(
    `INSERT INTO payments.transactions (id, platform_id, customer_id, platform_customer_id, type, status, record, source_account,
     destination_account, reference, created_at, updated_at)
     SELECT t.id, $1, t.customer, t.customer, 'OUTGOING', 'COMPLETED',
            jsonb_build_object(
              'id', t.id, 'platformId', $1::text, 'type', 'OUTGOING', 'status', 'COMPLETED', 'customerId', t.customer,
              'platformCustomerId', t.customer,
              'source', jsonb_build_object('sourceType', 'ACCOUNT', 'accountId', t.source, 'currency', 'USD'),
              'destination', jsonb_build_object('destinationType', 'ACCOUNT', 'accountId', t.destination, 'currency', 'USD'),
              'sentAmount', jsonb_build_object('value', (100 + t.i)::text, 'currency', 'USD'),
              'receivedAmount', jsonb_build_object('value', (100 + t.i)::text, 'currency', 'USD'),
              'exchangeRate', '1', 'fees', '0',
              'reconciliationInstructions', jsonb_build_object('reference', t.reference),
              'createdAt', to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'updatedAt', to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
              'settledAt', to_char(t.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
            t.source, t.destination, t.reference, t.at, t.at
       FROM (SELECT i,
                    'Transaction:' || gen_random_uuid() AS id,
                    'Customer:00000000-0000-4000-8000-' || lpad((i % ${ACCOUNTS})::text, 12, '0') AS customer,
                    'InternalAccount:00000000-0000-4000-8000-' || lpad((i % ${ACCOUNTS})::text, 12, '0') AS source,
                    'ExternalAccount:00000000-0000-4000-8000-' || lpad((i % ${ACCOUNTS})::text, 12, '0') AS destination,
                    'CRD-${tag}' || i AS reference,
                    timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second' AS at
               FROM generate_series(1, $2::int) AS i) AS t`,
    [platformId, count],
  );
  // The per-platform counter the transaction-counts projection keeps.
  await client.query(
    'INSERT INTO payments.transaction_counts (platform_id, count) VALUES ($1, $2) ON CONFLICT (platform_id) DO UPDATE SET count = ' +
      'payments.transaction_counts.count + EXCLUDED.count',
    [platformId, count],
  );
  // And the per-(platform, status) counter the transactions projection keeps with its rows (decision 0052).
  await client.query(
    "INSERT INTO payments.transaction_status_counts (platform_id, status, count) VALUES ($1, 'COMPLETED', $2) " +
      'ON CONFLICT (platform_id, status) DO UPDATE SET count = payments.transaction_status_counts.count + EXCLUDED.count',
    [platformId, count],
  );
};

/** The cursor a client holds after `position` rows in the given order (rows are one second apart). */
const cursorAfter = async (client: Client, platformId: string, position: number, order: 'asc' | 'desc'): Promise<string> => {
  const { rows } = await client.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM payments.transactions WHERE platform_id = $1 ORDER BY created_at ${order}, id ${order} OFFSET $2 LIMIT 1`,
    [platformId, position - 1],
  );
  const row = rows[0];
  if (!row) throw new Error(`no row at ${position}`);
  return encodeURIComponent(encodeCursor({ createdAt: row.created_at.toISOString(), id: row.id }));
};

const main = async () => {
  const stack = await startStack();
  const client = new Client({ connectionString: stack.database.url });
  await client.connect();
  try {
    // The bare hop, first, on the quiet stack (or from bench:all).
    const ceilings = await ceilingsFor(['bareHop']);
    const mine = await stack.createPlatform();
    const other = await stack.createPlatform();
    const started = Date.now();
    await seed(client, mine.platformId, ROWS, 'A');
    await seed(client, other.platformId, OTHER_ROWS, 'B');
    await client.query('VACUUM ANALYZE payments.transactions');
    console.log(`seeded ${ROWS} + ${OTHER_ROWS} transactions in ${Date.now() - started} ms\n`);

    const headers = { authorization: basic({ clientId: mine.token.clientId, clientSecret: mine.token.clientSecret ?? '' }) };
    const url = (query: string) => `${stack.baseUrl}/transactions?limit=20${query}`;
    const first = (await (await fetch(url(''), { headers })).json()) as { totalCount: number; data: unknown[] };
    if (first.totalCount !== ROWS || first.data.length !== 20) {
      throw new Error(
        `expected ${ROWS} rows in pages of 20, ` +
          (`got ${JSON.stringify(first).slice(0, 200)}\n${stack.logs.payments.join('').slice(-4000)}` +
            `\n${stack.logs.gateway.join('').slice(-4000)}`),
      );
    }

    const completed = (await (await fetch(url('&status=COMPLETED'), { headers })).json()) as { totalCount: number };
    if (completed.totalCount !== ROWS) throw new Error(`expected ${ROWS} COMPLETED, got totalCount ${completed.totalCount}`);

    console.log(`autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run, limit=20\n`);
    await measure('warm-up', { url: url(''), headers, duration: 3 });
    const middle = await cursorAfter(client, mine.platformId, ROWS / 2, 'desc');
    const deep = await cursorAfter(client, mine.platformId, ROWS - 20, 'desc');
    const deepAsc = await cursorAfter(client, mine.platformId, ROWS - 20, 'asc');
    const figures = {
      page1: await measure('page 1 (newest first)', { url: url(''), headers }),
      middle: await measure('page 2,500 of 5,000 (row 50,000)', { url: url(`&cursor=${middle}`), headers }),
      deep: await measure('last page (row 99,980)', { url: url(`&cursor=${deep}`), headers }),
      deepAscending: await measure('last page, oldest first', { url: url(`&sortOrder=asc&cursor=${deepAsc}`), headers }),
      accountFilter: await measure('accountIdentifier filter (1,000 rows), page 1', {
        url: url(`&accountIdentifier=${encodeURIComponent('InternalAccount:00000000-0000-4000-8000-000000000042')}`),
        headers,
      }),
      referenceFilter: await measure('reference filter (1 row)', { url: url('&reference=CRD-A77777'), headers }),
      // A filter every row matches: the exact totalCount is the per-(platform, status) counter, not a walk of all 100,000.
      broadFilter: await measure('status=COMPLETED (all 100,000 rows), page 1', { url: url('&status=COMPLETED'), headers }),
    };
    // Any refused request is a finding, not noise: show what the services logged about it.
    if (Object.values(figures).some((figure) => figure.non2xx > 0 || figure.errors > 0)) {
      for (const app of ['gateway', 'payments'] as const)
        console.log(`--- ${app} log (last lines) ---\n${stack.logs[app].slice(-20).join('').slice(-6000)}`);
    }
    writeFileSync(
      join(__dirname, 'last-transactions-run.json'),
      JSON.stringify({ measuredAt: new Date().toISOString(), rows: ROWS, connections: CONNECTIONS, seconds: SECONDS, figures }, null, 2) +
        '\n',
    );
    const titles: Record<keyof typeof figures, string> = {
      page1: 'page 1',
      middle: 'row 50,000',
      deep: 'last page',
      deepAscending: 'last page, oldest first',
      accountFilter: 'account filter',
      referenceFilter: 'reference filter',
      broadFilter: 'status filter, all rows',
    };
    reportBench(
      `GET /transactions at ${ROWS.toLocaleString('en')} rows (${CONNECTIONS} connections)`,
      ceilings,
      Object.entries(figures).flatMap(([key, figure]) => [
        {
          label: `${titles[key as keyof typeof figures]} req/s`,
          value: figure.requestsPerSecond,
          unit: 'req/s',
          ceiling: bareHopCeiling(ceilings),
        },
        {
          label: `${titles[key as keyof typeof figures]} p99`,
          value: figure.p99Ms,
          unit: 'ms',
          target: { kind: 'below' as const, value: 50, text: '< 50 ms' },
        },
      ]),
      { rows: ROWS, connections: CONNECTIONS, seconds: SECONDS, figures },
    );
    if (Object.values(figures).some((figure) => figure.non2xx > 0 || figure.errors > 0))
      throw new Error('Some list requests failed (see above).');
  } finally {
    await client.end();
    await stack.close();
  }
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
