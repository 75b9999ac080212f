import type { Client } from 'pg';

// BENCH_PG_STATEMENTS=1, on a PostgreSQL started with shared_preload_libraries = 'pg_stat_statements':
// a bench's measured phase by statement, in calls per operation, to see which round trips a
// change adds or removes (calls do not depend on the machine's speed; times do).

export const statementsWanted = process.env['BENCH_PG_STATEMENTS'] === '1';
const TOP = Number(process.env['BENCH_PG_STATEMENTS_TOP'] ?? 30);

/** Empties the statistics at the start of the measured phase (a no-op unless BENCH_PG_STATEMENTS=1). */
export const resetStatements = async (pg: Client): Promise<void> => {
  if (statementsWanted) await pg.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()');
};

/** Prints the phase's statements of this database by calls per operation, most called first. */
export const printStatements = async (pg: Client, database: string, operations: number, per: string): Promise<void> => {
  if (!statementsWanted) return;
  const { rows } = await pg.query<{ calls: string; ms: string; query: string }>(
    `SELECT calls::text, round(total_exec_time::numeric, 1)::text AS ms, regexp_replace(query, '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1 ORDER BY s.calls DESC LIMIT $2`,
    [database, TOP],
  );
  console.log(`  PostgreSQL statements per ${per} (calls, total ms over the phase, statement):`);
  for (const row of rows)
    console.log(
      `    ${(Number(row.calls) / Math.max(1, operations)).toFixed(2).padStart(7)} ${row.ms.padStart(8)}  ${row.query.slice(0, 150)}`,
    );
};
