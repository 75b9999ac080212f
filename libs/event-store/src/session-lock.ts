import type { Client, Notification } from 'pg';
import { connectClient } from './postgres-schema';
import { advisoryKey } from './sql-names';

export type SessionLockOptions = {
  connectionString: string;
  /** The lock's name; replicas that use the same name compete for one leadership. */
  name: string;
  /** Statements run once on each new session (LISTEN …), before the lock is asked for. */
  onConnect?: (client: Client) => Promise<void>;
  /** Notifications arriving on the session (for channels onConnect or the holder LISTENs to). */
  onNotification?: (notification: Notification) => void;
};

/**
 * Leadership among replicas through a session advisory lock on a connection of its own, outside the
 * process's pool (and outside a transaction-pooling PgBouncer: see deploy/README.md). A replica that
 * is not the leader keeps that session and asks again on it, instead of opening a new connection
 * every poll; the leader keeps it as long as it leads. Ending the session (end(), a crash, a killed
 * backend) releases the lock for another replica.
 */
export class SessionLock {
  private client: Client | undefined;
  private held = false;
  private readonly key: number;

  constructor(private readonly options: SessionLockOptions) {
    this.key = advisoryKey(options.name);
  }

  /** True while this replica holds the lock on a session that is still open. */
  get leading(): boolean {
    return this.held;
  }

  /** The open session, if any (the leader's, or the one a follower asks again on). */
  get session(): Client | undefined {
    return this.client;
  }

  /** Opens the session when there is none, then asks for the lock once; true when this replica holds it. */
  async tryLock(): Promise<boolean> {
    if (this.held) return true;
    const client = this.client ?? (await this.connect());
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [this.key]);
      this.held = rows[0]?.locked === true;
      return this.held;
    } catch (error) {
      await this.end();
      throw error;
    }
  }

  /** Ends the session: the lock, if held, goes with it. */
  async end(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.held = false;
    // Ending a session that already broke has nothing left to release (its lock went with it), and
    // a failed end changes nothing a caller could act on.
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = await connectClient(this.options.connectionString);
    // A broken session shows as a failed query on the next use (the caller logs that one); its
    // lock is gone with it, so this replica stops counting itself the leader at once.
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.held = false;
    });
    if (this.options.onNotification) client.on('notification', this.options.onNotification);
    try {
      await this.options.onConnect?.(client);
    } catch (error) {
      // The query's error is what the caller reports; a failing end() of a broken session adds nothing.
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    return client;
  }
}
