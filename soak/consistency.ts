import { Queue } from 'bullmq';
import IORedis from 'ioredis';
import type { Client } from 'pg';
import type { CheckResult } from './checks';
import type { SoakPlatform } from './workload';

// The checks of what a platform relies on (issue 22 item 4): a command's effects readable at once
// after its answer, card transactions and the ledger in agreement, and nothing left behind in the
// queues or the outboxes once the stack is quiet.

const MAX_LISTED = 20;
const listed = (lines: string[]): string[] =>
  lines.length > MAX_LISTED ? [...lines.slice(0, MAX_LISTED), `… and ${lines.length - MAX_LISTED} more`] : lines;

/** What each platform saw right after its POST /customers answers (counted in soak/workload.ts). */
export type ReadAfterCreate = {
  creates: number;
  listMisses: number;
  receives: number;
  receiveMisses: number;
  funds: number;
  fundMisses: number;
  examples: string[];
};
export const emptyReadAfterCreate = (): ReadAfterCreate => ({
  creates: 0,
  listMisses: 0,
  receives: 0,
  receiveMisses: 0,
  funds: 0,
  fundMisses: 0,
  examples: [],
});

export const READ_AFTER_CREATE_CHECK_NAME = 'right after POST /customers: its internal accounts listed, a receive or a fund to it succeeds';

export const checkReadAfterCreate = (platforms: SoakPlatform[]): CheckResult => {
  const problems: string[] = [];
  const examples: string[] = [];
  const total = emptyReadAfterCreate();
  for (const platform of platforms) {
    const seen = platform.readAfterCreate;
    for (const key of ['creates', 'listMisses', 'receives', 'receiveMisses', 'funds', 'fundMisses'] as const) total[key] += seen[key];
    if (seen.listMisses > 0)
      problems.push(
        `${platform.name}: ${seen.listMisses} of ${seen.creates} new customers had no USD and EUR internal account listed right after ` +
          `the 201`,
      );
    if (seen.receiveMisses > 0)
      problems.push(`${platform.name}: ${seen.receiveMisses} of ${seen.receives} receives right after the 201 refused`);
    if (seen.fundMisses > 0)
      problems.push(`${platform.name}: ${seen.fundMisses} of ${seen.funds} fundings right after the accounts were listed refused`);
    examples.push(...seen.examples.slice(0, 3).map((example) => `${platform.name}: e.g. ${example}`));
  }
  const { examples: _examples, ...figures } = total;
  return { name: READ_AFTER_CREATE_CHECK_NAME, failures: problems.length > 0 ? listed([...problems, ...examples]) : [], figures };
};

export type StoredCardTransaction = {
  id: string;
  accountId: string;
  status: string;
  settlements: string[];
  refunds: { amount: string }[];
  pulls: { amount: string; status: string }[];
};
export type CardLedgerEvent = { type: string; account_id: string; operation_id: string; amount: string };
const CARD_OPERATION = /^(.+):(?:authorization:hold|clearing:\d+:(?:settle|release|pull)|return:\d+:credit)$/;
const DEBITS = new Set(['AccountDebited', 'HoldSettled']);

/**
 * Each card transaction's amounts against its ledger movements, pure: what it settled (less
 * post-hoc pulls that failed) minus what it refunded must be exactly the net debit of its funding
 * account by the ledger operations named after it (settles and pulls debit, returns credit), and
 * no card operation may move money for a transaction the cards service does not have.
 */
export const compareCardLedger = (
  transactions: readonly StoredCardTransaction[],
  events: readonly CardLedgerEvent[],
): { failures: string[]; agreeing: number } => {
  const failures: string[] = [];
  const movements = new Map<string, { accounts: Set<string>; net: bigint }>();
  for (const event of events) {
    const id = CARD_OPERATION.exec(event.operation_id)?.[1];
    if (!id) continue;
    const entry = movements.get(id) ?? { accounts: new Set<string>(), net: 0n };
    entry.accounts.add(event.account_id);
    entry.net += DEBITS.has(event.type) ? BigInt(event.amount) : -BigInt(event.amount);
    movements.set(id, entry);
  }
  let agreeing = 0;
  for (const transaction of transactions) {
    const settled = transaction.settlements.reduce((sum, amount) => sum + BigInt(amount), 0n);
    const failedPulls = transaction.pulls.filter((pull) => pull.status === 'FAILED').reduce((sum, pull) => sum + BigInt(pull.amount), 0n);
    const refunded = transaction.refunds.reduce((sum, refund) => sum + BigInt(refund.amount), 0n);
    const expected = settled - failedPulls - refunded;
    const moved = movements.get(transaction.id) ?? { accounts: new Set<string>(), net: 0n };
    movements.delete(transaction.id);
    const foreign = [...moved.accounts].filter((account) => account !== transaction.accountId);
    if (moved.net !== expected)
      failures.push(
        `${transaction.id} (${transaction.status}): settled ${settled}${failedPulls ? ` (${failedPulls} of it a failed pull)` : ''}, ` +
          `refunded ${refunded}, so ${expected} net; the ledger debited ${moved.net}`,
      );
    else if (foreign.length > 0)
      failures.push(`${transaction.id}: ledger movements on ${foreign.join(', ')}, not its account ${transaction.accountId}`);
    else agreeing += 1;
  }
  for (const [id, moved] of movements)
    failures.push(`${id}: ${moved.net} moved in the ledger for a card transaction the cards service does not have`);
  return { failures, agreeing };
};

export const checkCardLedger = async (pg: Client): Promise<CheckResult> => {
  const transactions = (await pg.query<{ state: StoredCardTransaction }>('SELECT state FROM cards.card_transactions')).rows.map(
    (row) => row.state,
  );
  const events = (
    await pg.query<CardLedgerEvent>(
      `SELECT type, data->>'accountId' AS account_id, data->>'operationId' AS operation_id, data->>'amount' AS amount FROM accounts.events
      WHERE stream_id LIKE 'InternalAccount:%' AND type IN ('AccountCredited', 'AccountDebited', 'HoldSettled')
      AND data->>'operationId' LIKE 'CardTransaction:%'`,
    )
  ).rows;
  const { failures, agreeing } = compareCardLedger(transactions, events);
  return {
    name: "card transactions' amounts equal their ledger movements",
    failures: listed(failures),
    figures: { cardTransactions: transactions.length, agreeing, ledgerMovements: events.length },
  };
};

const QUEUES = ['webhook-deliveries', 'webhook-approvals', 'bulk-imports'];
const UNFINISHED = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/** Jobs of the stack's BullMQ queues that have not finished, by queue, with their data. */
export const unfinishedJobs = async (redisUrl: string, prefix: string): Promise<Map<string, { state: string; data: unknown }[]>> => {
  const connection = new IORedis(redisUrl, { maxRetriesPerRequest: null });
  const found = new Map<string, { state: string; data: unknown }[]>();
  try {
    for (const name of QUEUES) {
      const queue = new Queue(name, { connection, prefix });
      const jobs: { state: string; data: unknown }[] = [];
      for (const state of UNFINISHED) for (const job of await queue.getJobs([state], 0, 999)) jobs.push({ state, data: job?.data });
      const failed = await queue.getJobCountByTypes('failed');
      if (failed > 0) jobs.push({ state: `failed ×${failed}`, data: undefined });
      found.set(name, jobs);
      await queue.close();
    }
  } finally {
    connection.disconnect();
  }
  return found;
};

/** Each relay's checkpoint against the head of its store, and any dead letter kept. */
export const outboxBacklog = async (pg: Client): Promise<{ behind: string[]; deadLetters: string[]; relays: number }> => {
  const behind: string[] = [];
  const deadLetters: string[] = [];
  const schemas = (
    await pg.query<{ schema: string }>(
      "SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox_checkpoints' ORDER BY 1",
    )
  ).rows;
  let relays = 0;
  for (const { schema } of schemas) {
    const hasEvents =
      (await pg.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'events'", [schema])).rowCount! > 0;
    if (!hasEvents) continue;
    const head = BigInt((await pg.query(`SELECT coalesce(max(global_position), 0) AS head FROM "${schema}".events`)).rows[0].head);
    for (const row of (await pg.query<{ name: string; position: string }>(`SELECT name, position FROM "${schema}".outbox_checkpoints`))
      .rows) {
      relays += 1;
      if (BigInt(row.position) < head)
        behind.push(`${schema} outbox ${row.name} at ${row.position}, head ${head} (${head - BigInt(row.position)} events unpublished)`);
    }
  }
  // Dead letters (an event no publish could take) are left behind too, whatever the table's schema.
  for (const row of (
    await pg.query<{ schema: string; name: string }>(
      "SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_name LIKE '%dead_letter%'",
    )
  ).rows) {
    const count = Number((await pg.query(`SELECT count(*) AS n FROM "${row.schema}"."${row.name}"`)).rows[0].n);
    if (count > 0) deadLetters.push(`${row.schema}.${row.name} holds ${count} dead letters`);
  }
  return { behind, deadLetters, relays };
};

/**
 * Nothing left behind once the stack is quiet. Outboxes: every relay's checkpoint at the head of
 * its service's store, no dead letter. BullMQ (waiting, active, delayed, prioritized, waiting for children, or
 * failed jobs): none in bulk-imports (every import ran to its end); in the webhook lanes only jobs
 * that carry a delivery still PENDING in webhooks.deliveries, i.e. a retry in progress (to a
 * receiver that answered 500, or to the hostile endpoint that never answers). A job whose
 * deliveries are all DELIVERED, FAILED or unknown is work the dispatcher left behind.
 */
export const checkNothingLeftBehind = async (pg: Client, redisUrl: string, prefix: string): Promise<CheckResult> => {
  const failures: string[] = [];
  const outbox = await outboxBacklog(pg);
  failures.push(...outbox.behind, ...outbox.deadLetters);
  const jobs = await unfinishedJobs(redisUrl, prefix);
  const pending = new Set(
    (await pg.query<{ id: string }>("SELECT id FROM webhooks.deliveries WHERE status = 'PENDING'")).rows.map((row) => row.id),
  );
  const figures: Record<string, unknown> = { relays: outbox.relays };
  for (const [queue, entries] of jobs) {
    const retrying = entries.filter(
      (entry) =>
        queue !== 'bulk-imports' &&
        ((entry.data as { deliveries?: { id: string }[] })?.deliveries ?? []).some((delivery) => pending.has(delivery.id)),
    );
    const left = entries.filter((entry) => !retrying.includes(entry));
    figures[queue] = { unfinished: entries.length, retriesInProgress: retrying.length };
    if (left.length > 0)
      failures.push(
        `${queue}: ${left.length} jobs left behind (${left
          .slice(0, 3)
          .map((entry) => `${entry.state} ${JSON.stringify(entry.data ?? null).slice(0, 160)}`)
          .join('; ')})`,
      );
  }
  return { name: 'no BullMQ job and no outbox event left behind (retries in progress excepted)', failures: listed(failures), figures };
};
