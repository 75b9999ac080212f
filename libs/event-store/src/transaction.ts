import type { Pool, PoolClient } from 'pg';

/**
 * Runs work in one transaction on a pooled connection: committed when it returns, rolled back when
 * it throws. For a service's own tables beside its event store (webhook deliveries, wallet
 * credentials, agent usage), where the event store's single-statement appends do not apply.
 */
export const inTransaction = async <T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> => {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // The work's own error is what the caller sees; a connection whose ROLLBACK failed is in an
    // unknown state, so it is destroyed below instead of going back to the pool.
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: unknown) => (rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError))),
    );
    throw error;
  } finally {
    client.release(broken);
  }
};
