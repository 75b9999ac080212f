import { Client } from 'pg';
import { assertLedgerConserved } from '@corridor/testing';
import type { SoakClient } from './client';
import type { SoakStats } from './stats';
import type { SoakPlatform } from './workload';

// The end checks. Each returns its failures as readable lines (empty when it passes) and the
// figures the report shows.

export type CheckResult = { name: string; failures: string[]; figures?: Record<string, unknown> };

const EVENT_SCHEMAS = ['platform', 'customers', 'accounts', 'payments', 'cards'];
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'REJECTED', 'REFUNDED']);
const MAX_LISTED = 20;
const listed = (lines: string[]): string[] => (lines.length > MAX_LISTED ? [...lines.slice(0, MAX_LISTED), `… and ${lines.length - MAX_LISTED} more`] : lines);

/** Each projection's distance from the head of its service's store. */
export const projectionLag = async (pg: Client): Promise<{ schema: string; name: string; position: number; head: number }[]> => {
  const rows: { schema: string; name: string; position: number; head: number }[] = [];
  for (const schema of EVENT_SCHEMAS) {
    const head = Number((await pg.query(`SELECT coalesce(max(global_position), 0) AS head FROM ${schema}.events`)).rows[0].head);
    for (const row of (await pg.query(`SELECT name, position FROM ${schema}.projection_checkpoints ORDER BY name`)).rows) rows.push({ schema, name: row.name, position: Number(row.position), head });
  }
  return rows;
};

export const checkProjections = async (pg: Client): Promise<CheckResult> => {
  const lag = await projectionLag(pg);
  const behind = lag.filter((row) => row.position < row.head);
  return {
    name: 'every projection at the head of its store',
    failures: behind.map((row) => `${row.schema}.${row.name} at ${row.position}, head ${row.head} (${row.head - row.position} events behind)`),
    figures: { projections: lag.length, behind: behind.length, maxLag: Math.max(0, ...lag.map((row) => row.head - row.position)) },
  };
};

export const checkServerErrors = (stats: SoakStats): CheckResult => {
  const outside = stats.serverErrors.filter((attempt) => !stats.inChaosWindow(attempt));
  const byOperation = new Map<string, number>();
  for (const attempt of outside) byOperation.set(`${attempt.operation} → ${attempt.status || 'connection error'}`, (byOperation.get(`${attempt.operation} → ${attempt.status || 'connection error'}`) ?? 0) + 1);
  return {
    name: 'no 5xx outside the chaos windows',
    failures: [...byOperation.entries()].map(([what, count]) => `${count} × ${what}`),
    figures: { serverErrors: stats.serverErrors.length, insideWindows: stats.serverErrors.length - outside.length, outsideWindows: outside.length },
  };
};

export const checkLedger = async (url: string): Promise<CheckResult> => {
  try {
    const summary = await assertLedgerConserved({ connectionString: url, schema: 'accounts' });
    return { name: 'ledger conserved', failures: [], figures: summary };
  } catch (error) {
    return { name: 'ledger conserved', failures: [(error as Error).message] };
  }
};

/** Every transaction of every platform, through the API (keyset pages). */
const listTransactions = async (client: SoakClient, platform: SoakPlatform): Promise<{ id: string; status: string; type: string; refund?: { status: string } }[]> => {
  const all: { id: string; status: string; type: string; refund?: { status: string } }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page += 1) {
    const reply = await client.call('GET /transactions (end check)', platform.auth, 'GET', `/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (reply.status !== 200) throw new Error(`GET /transactions answered ${reply.status}: ${reply.text.slice(0, 200)}`);
    all.push(...reply.body.data);
    if (!reply.body.hasMore) break;
    cursor = reply.body.nextCursor;
  }
  return all;
};

export const checkPayments = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  let explained = 0;
  for (const platform of platforms) {
    const transactions = await listTransactions(client, platform);
    for (const transaction of transactions) {
      statuses[transaction.status] = (statuses[transaction.status] ?? 0) + 1;
      if (TERMINAL.has(transaction.status) && transaction.refund?.status !== 'PENDING') continue;
      if (transaction.status === 'PENDING' && platform.quotesNotExecuted.has(transaction.id)) {
        explained += 1;
        continue;
      }
      failures.push(`${platform.name}: ${transaction.id} (${transaction.type}) is ${transaction.status}${transaction.refund ? ` with its refund ${transaction.refund.status}` : ''}`);
    }
    // Exactly once: every transaction the store holds was answered to a client, and each answer is in the store.
    const stored = new Set(transactions.map((transaction) => transaction.id));
    const unanswered = [...stored].filter((id) => !platform.transactionIds.has(id));
    const missing = [...platform.transactionIds].filter((id) => !stored.has(id));
    if (unanswered.length > 0) failures.push(`${platform.name}: ${unanswered.length} transactions in the store that no client was answered (a retry that took effect twice?): ${unanswered.slice(0, 5).join(', ')}`);
    if (missing.length > 0) failures.push(`${platform.name}: ${missing.length} answered transactions missing from GET /transactions: ${missing.slice(0, 5).join(', ')}`);
  }
  return { name: 'every payment terminal or explainably pending, each created exactly once', failures: listed(failures), figures: { statuses, pendingQuotesNeverExecuted: explained } };
};

export const checkCustomersExactlyOnce = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  for (const platform of platforms) {
    const reply = await client.call('GET /customers (end check)', platform.auth, 'GET', '/customers?limit=1');
    const jobs = await Promise.all(platform.bulkJobs.map((job) => client.call('GET /customers/bulk/jobs/{id} (end check)', platform.auth, 'GET', `/customers/bulk/jobs/${job}`)));
    const imported = jobs.reduce((sum, job) => sum + Number(job.body?.progress?.successful ?? 0), 0);
    const unfinished = jobs.filter((job) => !['COMPLETED', 'FAILED'].includes(job.body?.status)).length;
    if (unfinished > 0) failures.push(`${platform.name}: ${unfinished} bulk imports not finished`);
    const expected = platform.customerIds.size + imported;
    if (reply.body?.totalCount !== expected) failures.push(`${platform.name}: ${reply.body?.totalCount} customers stored, ${expected} created by the clients (${platform.customerIds.size} by POST, ${imported} by CSV)`);
    if (platform.customersWithoutAccounts > 0) failures.push(`${platform.name}: ${platform.customersWithoutAccounts} customers whose internal accounts did not open within 15 s`);
  }
  return { name: 'every customer created exactly once, with its internal accounts', failures };
};

/** Every webhook the services created was delivered, except to receivers that answered 500 (still in retry, reported). */
export const checkWebhooks = async (pg: Client, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  const byPlatform = new Map(platforms.map((platform) => [platform.platformId, platform]));
  const rows = (await pg.query<{ id: string; platform_id: string; type: string; status: string; last_status_code: number | null; attempt_count: number; resource_id: string; stream_position: number }>(
    'SELECT id, platform_id, type, status, last_status_code, attempt_count, resource_id, stream_position FROM webhooks.deliveries ORDER BY stream_position',
  )).rows;
  const tally: Record<string, number> = {};
  let inRetry = 0;
  let queuedBehindRetry = 0;
  // Webhooks about one resource go out in order: once our receiver answered one of them 500, it is
  // retried after 10 s, 20 s, 40 s… and every later webhook of that resource waits behind it, so a
  // busy resource (a hot account) drains slowly. Those are explained, not lost; the ones of
  // resources our receivers never refused are not.
  const retrying = new Map<string, number>();
  for (const row of rows) {
    const refused = byPlatform.get(row.platform_id)?.receiver.refused.has(row.id) ?? false;
    const key = `${row.platform_id} ${row.resource_id}`;
    if (refused && !retrying.has(key)) retrying.set(key, row.stream_position);
  }
  for (const row of rows) {
    tally[row.status] = (tally[row.status] ?? 0) + 1;
    const platform = byPlatform.get(row.platform_id);
    const refusedByUs = platform?.receiver.refused.has(row.id) ?? false;
    if (row.status === 'DELIVERED') {
      if (platform && !platform.receiver.acknowledged.has(row.id)) failures.push(`${row.id} (${row.type}) is DELIVERED but its receiver never acknowledged it`);
      continue;
    }
    if (refusedByUs && row.last_status_code === 500) {
      if (row.status === 'PENDING') inRetry += 1;
      continue;
    }
    const blockedAt = retrying.get(`${row.platform_id} ${row.resource_id}`);
    if (row.status === 'PENDING' && row.attempt_count === 0 && blockedAt !== undefined && blockedAt < row.stream_position) {
      queuedBehindRetry += 1;
      continue;
    }
    failures.push(`${row.id} (${row.type}) is ${row.status} after ${row.attempt_count} attempts, last status ${row.last_status_code ?? 'none'}`);
  }
  const duplicates = platforms.reduce((sum, platform) => sum + platform.receiver.counts.duplicates, 0);
  const badSignatures = platforms.reduce((sum, platform) => sum + platform.receiver.counts.badSignatures, 0);
  if (badSignatures > 0) failures.push(`${badSignatures} webhooks whose signature did not verify`);
  return { name: 'every webhook delivered (duplicates counted)', failures: listed(failures), figures: { deliveries: rows.length, byStatus: tally, inRetryAfter500: inRetry, queuedBehindRetry, duplicates, badSignatures } };
};

/** Each platform asks for the others' customers, external accounts and transactions: each must be a 404. */
export const checkTenancy = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  let tried = 0;
  for (const platform of platforms) {
    for (const other of platforms.filter((candidate) => candidate !== platform)) {
      const probes: [string, string][] = [
        ...[...other.customerIds].slice(0, 5).map((id): [string, string] => ['GET /customers/{id}', `/customers/${id}`]),
        ...other.externalAccountIds.slice(0, 5).map((id): [string, string] => ['GET /customers/external-accounts/{id}', `/customers/external-accounts/${id}`]),
        ...[...other.transactionIds].slice(0, 5).map((id): [string, string] => ['GET /transactions/{id}', `/transactions/${id}`]),
      ];
      for (const [operation, path] of probes) {
        tried += 1;
        const reply = await client.call(`${operation} (other tenant)`, platform.auth, 'GET', path);
        if (reply.status !== 404) failures.push(`${platform.name} GET ${path} of ${other.name}: ${reply.status}`);
      }
      const customerId = [...other.customerIds][0];
      if (customerId) {
        tried += 1;
        const reply = await client.call('GET /customers/internal-accounts (other tenant)', platform.auth, 'GET', `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`);
        if (reply.status === 200 && (reply.body?.data?.length ?? 0) > 0) failures.push(`${platform.name} lists ${reply.body.data.length} internal accounts of ${other.name}'s customer ${customerId}`);
      }
    }
  }
  return { name: 'no tenant sees another tenant\'s data', failures: listed(failures), figures: { probes: tried } };
};
