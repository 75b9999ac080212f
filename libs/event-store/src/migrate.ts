import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connectClient, ddlLockKey } from './postgres-schema';
import { assertSchemaName } from './sql-names';

/**
 * Applies the `*.sql` files of `directory` in name order, each once, inside the service schema
 * (files use unqualified table names; search_path points them at the schema). Each file runs in
 * its own transaction with its record in `<schema>.schema_migrations`. A session advisory lock
 * makes two processes starting at once apply each file exactly once.
 */
export async function migrate(options: { connectionString: string; schema: string; directory: string }): Promise<string[]> {
  const schema = assertSchemaName(options.schema);
  const files = (await readdir(options.directory)).filter((file) => file.endsWith('.sql')).sort();
  const client = await connectClient(options.connectionString);
  // The same key as ensureEventStoreSchema: both create the schema, and concurrent creates collide.
  const key = ddlLockKey(schema);
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [key]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set(
      (await client.query(`SELECT name FROM ${schema}.schema_migrations`)).rows.map((row: { name: string }) => row.name),
    );
    for (const file of files.filter((name) => !done.has(name))) {
      const sql = await readFile(join(options.directory, file), 'utf8');
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO ${schema}`);
        await client.query(sql);
        await client.query(`INSERT INTO ${schema}.schema_migrations (name) VALUES ($1)`, [file]);
        await client.query('COMMIT');
      } catch (error) {
        // The migration's own error is rethrown below; a failed ROLLBACK ends with the session anyway.
        await client.query('ROLLBACK').catch(() => undefined);
        throw new Error(`Migration ${file} failed in schema ${schema}: ${(error as Error).message}`, { cause: error });
      }
      applied.push(file);
    }
  } finally {
    // Ending the session also releases the advisory lock.
    await client.end();
  }
  return applied;
}
