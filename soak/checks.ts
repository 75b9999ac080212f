import type { Client } from 'pg';
import { assertLedgerConserved } from '@corridor/testing';
import type { SoakClient } from './client';
import type { SoakStats } from './stats';
import { judgeBacklog } from './webhook-backlog';
import type { SoakPlatform } from './workload';

// The end checks. Each returns its failures as readable lines (empty when it passes) and the
// figures the report shows.

/** `skipped` says why a check was not judged in this run (its figures are still printed). */
export type CheckResult = { name: string; failures: string[]; figures?: Record<string, unknown>; skipped?: string };

const EVENT_SCHEMAS = ['platform', 'customers', 'accounts', 'payments', 'cards', 'agents'];
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'REJECTED', 'REFUNDED']);
const MAX_LISTED = 20;
const listed = (lines: string[]): string[] =>
  lines.length > MAX_LISTED ? [...lines.slice(0, MAX_LISTED), `… and ${lines.length - MAX_LISTED} more`] : lines;

/** Each projection's distance from the head of its service's store. */
export const projectionLag = async (pg: Client): Promise<{ schema: string; name: string; position: number; head: number }[]> => {
  const rows: { schema: string; name: string; position: number; head: number }[] = [];
  for (const schema of EVENT_SCHEMAS) {
    const head = Number((await pg.query(`SELECT coalesce(max(global_position), 0) AS head FROM ${schema}.events`)).rows[0].head);
    for (const row of (await pg.query(`SELECT name, position FROM ${schema}.projection_checkpoints ORDER BY name`)).rows)
      rows.push({ schema, name: row.name, position: Number(row.position), head });
  }
  return rows;
};

export const checkProjections = async (pg: Client): Promise<CheckResult> => {
  const lag = await projectionLag(pg);
  const behind = lag.filter((row) => row.position < row.head);
  return {
    name: 'every projection at the head of its store',
    failures: behind.map(
      (row) => `${row.schema}.${row.name} at ${row.position}, head ${row.head} (${row.head - row.position} events behind)`,
    ),
    figures: { projections: lag.length, behind: behind.length, maxLag: Math.max(0, ...lag.map((row) => row.head - row.position)) },
  };
};

export const checkServerErrors = (stats: SoakStats): CheckResult => {
  const outside = stats.serverErrors.filter((attempt) => !stats.inChaosWindow(attempt));
  const byOperation = new Map<string, number>();
  for (const attempt of outside)
    byOperation.set(
      `${attempt.operation} → ${attempt.status || 'connection error'}`,
      (byOperation.get(`${attempt.operation} → ${attempt.status || 'connection error'}`) ?? 0) + 1,
    );
  return {
    name: 'no 5xx outside the chaos windows',
    failures: [...byOperation.entries()].map(([what, count]) => `${count} × ${what}`),
    figures: {
      serverErrors: stats.serverErrors.length,
      insideWindows: stats.serverErrors.length - outside.length,
      outsideWindows: outside.length,
    },
  };
};

/**
 * The soak's stack runs the production limits, and the honest platforms' traffic is meant to stay
 * under them: any 429 an honest platform got (its client retried after Retry-After) is a tenant
 * or the service's own bounds refusing a well-behaved one, e.g. while the hostile platform's
 * wrong secrets hold the credential verifications.
 */
export const checkHonestUnderLimits = (stats: SoakStats): CheckResult => {
  const byOperation = [...stats.operations.entries()]
    .map(([operation, entry]) => [operation, entry.byStatus.get('429') ?? 0] as const)
    .filter(([, count]) => count > 0);
  const reasons = [...stats.surprises.entries()]
    .filter(([kind]) => kind.startsWith('429'))
    .map(([kind, entry]) => `${entry.count} × ${kind}`);
  const total = byOperation.reduce((sum, [, count]) => sum + count, 0);
  return {
    name: 'honest platforms never refused 429 (the production limits hold them in)',
    failures: total > 0 ? listed([`${total} answers 429 to honest platforms, on ${byOperation.length} operations`, ...reasons]) : [],
    figures: { refused429: total, operations: Object.fromEntries(byOperation) },
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
type ListedTransaction = {
  id: string;
  status: string;
  type: string;
  customerId: string;
  agentId?: string;
  refund?: { status: string };
  createdAt?: string;
};
const listTransactions = async (client: SoakClient, platform: SoakPlatform): Promise<ListedTransaction[]> => {
  const all: ListedTransaction[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page += 1) {
    const reply = await client.call(
      'GET /transactions (end check)',
      platform.auth,
      'GET',
      `/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
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
      failures.push(
        `${platform.name}: ${transaction.id} (${transaction.type}) is ${transaction.status}${
          transaction.refund ? ` with its refund ${transaction.refund.status}` : ''
        }`,
      );
    }
    // Exactly once: every transaction the store holds was answered to a client, and each answer is in the store.
    const stored = new Set(transactions.map((transaction) => transaction.id));
    const describe = (id: string) => {
      const transaction = transactions.find((candidate) => candidate.id === id);
      return `${id} (${transaction?.type} ${transaction?.status}, created ${transaction?.createdAt})`;
    };
    const unanswered = [...stored].filter((id) => !platform.transactionIds.has(id)).map(describe);
    const missing = [...platform.transactionIds].filter((id) => !stored.has(id));
    if (unanswered.length > 0)
      failures.push(
        `${platform.name}: ${unanswered.length} transactions in the store that no client was answered (a retry that took effect ` +
          `twice?): ${unanswered.slice(0, 5).join(', ')}`,
      );
    if (missing.length > 0)
      failures.push(
        `${platform.name}: ${missing.length} answered transactions missing from GET /transactions: ${missing.slice(0, 5).join(', ')}`,
      );
  }
  return {
    name: 'every payment terminal or explainably pending, each created exactly once',
    failures: listed(failures),
    figures: { statuses, pendingQuotesNeverExecuted: explained },
  };
};

export const checkCustomersExactlyOnce = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  for (const platform of platforms) {
    const reply = await client.call('GET /customers (end check)', platform.auth, 'GET', '/customers?limit=1');
    const jobs = await Promise.all(
      platform.bulkJobs.map((job) =>
        client.call('GET /customers/bulk/jobs/{id} (end check)', platform.auth, 'GET', `/customers/bulk/jobs/${job}`),
      ),
    );
    const imported = jobs.reduce((sum, job) => sum + Number(job.body?.progress?.successful ?? 0), 0);
    const unfinished = jobs.filter((job) => !['COMPLETED', 'FAILED'].includes(job.body?.status)).length;
    if (unfinished > 0) failures.push(`${platform.name}: ${unfinished} bulk imports not finished`);
    const expected = platform.customerIds.size + imported;
    if (reply.body?.totalCount !== expected)
      failures.push(
        `${platform.name}: ${reply.body?.totalCount} customers stored, ${expected} created by the clients (${platform.customerIds.size} ` +
          `by POST, ${imported} by CSV)`,
      );
    if (platform.customersWithoutAccounts > 0)
      failures.push(`${platform.name}: ${platform.customersWithoutAccounts} customers whose internal accounts did not open within 15 s`);
  }
  return { name: 'every customer created exactly once, with its internal accounts', failures };
};

/**
 * Every webhook the services created was delivered, except to receivers that answered 500 (still in
 * retry, and what waits behind them, reported); no head of line left unattempted (webhook-backlog.ts).
 */
export const checkWebhooks = async (pg: Client, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const byPlatform = new Map(platforms.map((platform) => [platform.platformId, platform]));
  const rows = (
    await pg.query<{
      id: string;
      platform_id: string;
      type: string;
      status: string;
      last_status_code: number | null;
      attempt_count: number;
      resource_id: string;
      stream_position: string;
      next_attempt_at: Date;
      lease_until: Date | null;
      finished_at: Date | null;
      now: Date;
    }>(
      // The given (honest) platforms' deliveries: the hostile platform's endpoint never answers, by design.
      'SELECT id, platform_id, type, status, last_status_code, attempt_count, resource_id, stream_position, next_attempt_at, ' +
        'lease_until, coalesce(delivered_at, failed_at) AS finished_at, now() AS now FROM webhooks.deliveries WHERE platform_id = ANY($1)',
      [platforms.map((platform) => platform.platformId)],
    )
  ).rows;
  const failures: string[] = [];
  const tally: Record<string, number> = {};
  for (const row of rows) {
    tally[row.status] = (tally[row.status] ?? 0) + 1;
    const receiver = byPlatform.get(row.platform_id)?.receiver;
    if (row.status === 'DELIVERED' && receiver && !receiver.acknowledged.has(row.id))
      failures.push(`${row.id} (${row.type}) is DELIVERED but its receiver never acknowledged it`);
  }
  const receiverOf = (id: string) => platforms.find((platform) => platform.receiver.refusedEver.has(id))?.receiver;
  const backlog = judgeBacklog(
    rows.map((row) => ({
      id: row.id,
      platformId: row.platform_id,
      type: row.type,
      status: row.status,
      lastStatusCode: row.last_status_code,
      attemptCount: row.attempt_count,
      resourceId: row.resource_id,
      streamPosition: Number(row.stream_position),
      nextAttemptAt: row.next_attempt_at,
      leaseUntil: row.lease_until,
      finishedAt: row.finished_at,
    })),
    { inRetry: (id) => receiverOf(id)?.refused.has(id) ?? false, everRefused: (id) => receiverOf(id) !== undefined },
    rows[0]?.now ?? new Date(),
  );
  failures.push(...backlog.failures);
  const duplicates = platforms.reduce((sum, platform) => sum + platform.receiver.counts.duplicates, 0);
  const badSignatures = platforms.reduce((sum, platform) => sum + platform.receiver.counts.badSignatures, 0);
  if (badSignatures > 0) failures.push(`${badSignatures} webhooks whose signature did not verify`);
  const { inRetryAfter500, queuedBehindRetry, stuckHeads } = backlog;
  return {
    name: 'every webhook delivered (duplicates counted)',
    failures: listed(failures),
    figures: { deliveries: rows.length, byStatus: tally, inRetryAfter500, queuedBehindRetry, stuckHeads, duplicates, badSignatures },
  };
};

/** Each platform asks for the others' customers, external accounts and transactions: each must be a 404. */
export const checkTenancy = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  let tried = 0;
  for (const platform of platforms) {
    for (const other of platforms.filter((candidate) => candidate !== platform)) {
      const probes: [string, string][] = [
        ...[...other.customerIds].slice(0, 5).map((id): [string, string] => ['GET /customers/{id}', `/customers/${id}`]),
        ...other.externalAccountIds
          .slice(0, 5)
          .map((id): [string, string] => ['GET /customers/external-accounts/{id}', `/customers/external-accounts/${id}`]),
        ...[...other.transactionIds].slice(0, 5).map((id): [string, string] => ['GET /transactions/{id}', `/transactions/${id}`]),
        ...other.cards.slice(0, 5).map((card): [string, string] => ['GET /cards/{id}', `/cards/${card.id}`]),
      ];
      for (const [operation, path] of probes) {
        tried += 1;
        const reply = await client.call(`${operation} (other tenant)`, platform.auth, 'GET', path);
        if (reply.status !== 404) failures.push(`${platform.name} GET ${path} of ${other.name}: ${reply.status}`);
      }
      const customerId = [...other.customerIds][0];
      if (customerId) {
        tried += 1;
        const reply = await client.call(
          'GET /customers/internal-accounts (other tenant)',
          platform.auth,
          'GET',
          `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`,
        );
        if (reply.status === 200 && (reply.body?.data?.length ?? 0) > 0)
          failures.push(`${platform.name} lists ${reply.body.data.length} internal accounts of ${other.name}'s customer ${customerId}`);
      }
      const card = other.cards[0];
      if (card) {
        tried += 1;
        const reply = await client.call(
          'GET /cards (other tenant)',
          platform.auth,
          'GET',
          `/cards?cardholderId=${encodeURIComponent(card.customerId)}`,
        );
        if (reply.status !== 200 || (reply.body?.data?.length ?? 0) > 0)
          failures.push(
            `${platform.name} GET /cards?cardholderId= ${other.name}'s cardholder: ${reply.status}, ${reply.body?.data?.length ?? '?'} ` +
              `cards`,
          );
      }
    }
  }
  return { name: "no tenant sees another tenant's data", failures: listed(failures), figures: { probes: tried } };
};

/** Every card of every platform, through the API (keyset pages). */
const listCards = async (
  client: SoakClient,
  platform: SoakPlatform,
): Promise<{ id: string; state: string; stateReason: string | null; platformCardId: string }[]> => {
  const all: { id: string; state: string; stateReason: string | null; platformCardId: string }[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1_000; page += 1) {
    const reply = await client.call(
      'GET /cards (end check)',
      platform.auth,
      'GET',
      `/cards?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    if (reply.status !== 200) throw new Error(`GET /cards answered ${reply.status}: ${reply.text.slice(0, 200)}`);
    all.push(...reply.body.data);
    cursor = reply.body.nextCursor;
    if (!cursor) break;
  }
  return all;
};

/** Cards created exactly once, and the sandbox issuer's suffixes kept: 001 still PENDING_ISSUE, 002 CLOSED with ISSUER_REJECTED. */
export const checkCards = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  const states: Record<string, number> = {};
  let transactions = 0;
  for (const platform of platforms) {
    const cards = await listCards(client, platform);
    transactions += platform.cardTransactions.size;
    const answered = new Set(platform.cards.map((card) => card.id));
    const stored = new Set(cards.map((card) => card.id));
    const unanswered = [...stored].filter((id) => !answered.has(id));
    const missing = [...answered].filter((id) => !stored.has(id));
    if (unanswered.length > 0)
      failures.push(
        `${platform.name}: ${unanswered.length} cards in the store that no client was answered: ${unanswered.slice(0, 5).join(', ')}`,
      );
    if (missing.length > 0)
      failures.push(`${platform.name}: ${missing.length} answered cards missing from GET /cards: ${missing.slice(0, 5).join(', ')}`);
    for (const card of cards) {
      states[card.state] = (states[card.state] ?? 0) + 1;
      if (card.platformCardId.endsWith('-001') && card.state !== 'PENDING_ISSUE')
        failures.push(`${platform.name}: ${card.id} (${card.platformCardId}) is ${card.state}; 001 stays PENDING_ISSUE`);
      if (card.platformCardId.endsWith('-002') && (card.state !== 'CLOSED' || card.stateReason !== 'ISSUER_REJECTED'))
        failures.push(
          `${platform.name}: ${card.id} (${card.platformCardId}) is ${card.state} ${card.stateReason}; 002 is CLOSED ISSUER_REJECTED`,
        );
    }
  }
  return {
    name: 'every card created exactly once, the issuer suffixes kept',
    failures: listed(failures),
    figures: { cards: states, cardTransactionsAuthorized: transactions },
  };
};

/**
 * The holds side of the ledger, card holds included: from the accounts events, every hold's amount
 * still reserved (held, less what a settle took or released, kept only by a partial clearing that
 * keeps the rest) must add up to each account's `held`; every card hold belongs to an
 * authorization a client was answered; and a card transaction the users saw SETTLED or REFUNDED
 * reserves nothing any more.
 */
export const checkCardHolds = async (pg: Client, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  const events = (
    await pg.query<{ type: string; data: Record<string, string> }>(
      "SELECT type, data FROM accounts.events WHERE stream_id LIKE 'InternalAccount:%' AND type IN ('FundsHeld', 'HoldSettled', " +
        "'HoldReleased') ORDER BY global_position",
    )
  ).rows;
  const open = new Map<string, { accountId: string; amount: bigint }>();
  for (const { type, data } of events) {
    if (type === 'FundsHeld') open.set(data['holdId']!, { accountId: data['accountId']!, amount: BigInt(data['amount']!) });
    else if (type === 'HoldSettled')
      open.set(data['holdId']!, { accountId: data['accountId']!, amount: BigInt(data['remainingAmount'] ?? '0') });
    else open.set(data['holdId']!, { accountId: data['accountId']!, amount: 0n });
  }
  const heldByAccount = new Map<string, bigint>();
  for (const hold of open.values()) heldByAccount.set(hold.accountId, (heldByAccount.get(hold.accountId) ?? 0n) + hold.amount);
  const rows = (await pg.query<{ id: string; held: string }>('SELECT id, held FROM accounts.internal_accounts')).rows;
  for (const row of rows) {
    const expected = heldByAccount.get(row.id) ?? 0n;
    if (BigInt(row.held) !== expected) failures.push(`account ${row.id}: held ${row.held}, its open holds add up to ${expected}`);
  }
  const answered = new Map(
    platforms.flatMap((platform) => [...platform.cardTransactions.values()].map((transaction) => [transaction.id, transaction] as const)),
  );
  const cardHolds = [...open.entries()].filter(([holdId]) => holdId.startsWith('CardTransaction:'));
  for (const [holdId, hold] of cardHolds) {
    const transaction = answered.get(holdId);
    if (!transaction)
      failures.push(
        `card hold ${holdId} on ${hold.accountId} (${hold.amount} still held) belongs to no authorization a client was answered`,
      );
    else if ((transaction.status === 'SETTLED' || transaction.status === 'REFUNDED') && hold.amount !== 0n)
      failures.push(`card transaction ${holdId} is ${transaction.status} but ${hold.amount} is still held on ${hold.accountId}`);
  }
  const openCardAmount = cardHolds.reduce((sum, [, hold]) => sum + hold.amount, 0n);
  return {
    name: 'holds conserved, card holds included (each answered once, closed when settled)',
    failures: listed(failures),
    figures: {
      holds: open.size,
      cardHolds: cardHolds.length,
      cardHoldsStillOpen: cardHolds.filter(([, hold]) => hold.amount > 0n).length,
      cardAmountStillHeld: openCardAmount.toString(),
    },
  };
};

type StoredAction = {
  id: string;
  platform_id: string;
  agent_id: string;
  customer_id: string;
  status: string;
  execution_due: boolean;
  charge: string;
  transaction_id: string | null;
  transaction_customer: string | null;
  quote_id: string | null;
  today: boolean;
};
type Usage = { dailySpend: number; dailyTransactionCount: number; monthlySpend: number };

/**
 * Agents (decision 0016), from the agents store and the API: every action the users saw is
 * terminal (APPROVED with its transaction, REJECTED, FAILED) or PENDING_APPROVAL because nobody
 * decided it; no action in the store that no user was answered, beyond the submits whose answer
 * was lost or that payments refused; each agent's usage (GET /agents/{id} and /agents/me) is the
 * sum of its APPROVED and PENDING_APPROVAL actions' charges today and never above the highest
 * daily limit and count it had; every transaction carrying agentId is of that agent's customer and
 * platform. It also records the agents' transactions and unexecuted quotes for checkPayments, so
 * it runs first.
 */
export const checkAgents = async (pg: Client, client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  const figures = {
    agentsStored: 0,
    agents: 0,
    live: 0,
    deleted: 0,
    actions: {} as Record<string, number>,
    pendingNeverDecided: 0,
    unansweredExplained: 0,
    orphanReservations: 0,
    agentTransactions: 0,
    usageChecked: 0,
  };
  const rows = (
    await pg.query<StoredAction>(
      `SELECT id, platform_id, agent_id, customer_id, status, execution_due, action->>'charge' AS charge,
       action->'transaction'->>'id' AS transaction_id,
            action->'transaction'->>'customerId' AS transaction_customer, action->'request'->>'quoteId' AS quote_id,
            (created_at AT TIME ZONE 'UTC')::date = (now() AT TIME ZONE 'UTC')::date AS today
       FROM agents.agent_actions`,
    )
  ).rows;
  const byAgent = new Map<string, StoredAction[]>();
  for (const row of rows) byAgent.set(row.agent_id, [...(byAgent.get(row.agent_id) ?? []), row]);
  // A reservation whose request died before its action's first event, or whose action ended
  // REJECTED or FAILED before the release ran: held until the sweep releases it (two minutes on).
  const orphans = new Map<string, { count: number; amount: bigint }>();
  for (const row of (
    await pg.query<{ agent_id: string; amount: string }>(
      `SELECT r.agent_id, r.amount FROM agents.agent_usage_reservations r LEFT JOIN agents.agent_actions a ON a.id = r.action_id
      WHERE NOT r.released AND (a.id IS NULL OR a.status IN ('REJECTED', 'FAILED')) AND r.day = (now() AT TIME ZONE 'UTC')::date`,
    )
  ).rows) {
    const entry = orphans.get(row.agent_id) ?? { count: 0, amount: 0n };
    orphans.set(row.agent_id, { count: entry.count + 1, amount: entry.amount + BigInt(row.amount) });
  }
  const dbUsage = new Map(
    (
      await pg.query<{ agent_id: string; transaction_count: number; spend: string }>(
        "SELECT agent_id, transaction_count, spend FROM agents.agent_usage_daily WHERE day = (now() AT TIME ZONE 'UTC')::date",
      )
    ).rows.map((row) => [row.agent_id, row]),
  );

  const storedAgents = (await pg.query<{ id: string; platform_id: string }>('SELECT id, platform_id FROM agents.agents')).rows;
  for (const platform of platforms) {
    const known = new Map(platform.agents.map((agent) => [agent.id, agent]));
    // Exactly once: every agent in the store was answered to a create, beyond creates whose answer was lost.
    const stored = storedAgents.filter((row) => row.platform_id === platform.platformId);
    figures.agentsStored += stored.length;
    const unanswered = stored.filter((row) => !known.has(row.id));
    const missing = platform.agents.filter((agent) => !stored.some((row) => row.id === agent.id));
    if (unanswered.length > platform.agentCreatesLost)
      failures.push(
        `${platform.name}: ${unanswered.length} agents in the store no create was answered (${platform.agentCreatesLost} answers lost; ` +
          `a retry that took effect twice?): ${unanswered
            .slice(0, 3)
            .map((row) => row.id)
            .join(', ')}`,
      );
    if (missing.length > 0)
      failures.push(
        `${platform.name}: ${missing.length} answered agents missing from the store: ${missing
          .slice(0, 3)
          .map((agent) => agent.id)
          .join(', ')}`,
      );
    for (const row of rows.filter((candidate) => candidate.platform_id === platform.platformId && !known.has(candidate.agent_id)))
      failures.push(`${platform.name}: action ${row.id} of agent ${row.agent_id}, an agent no create answered`);
    for (const agent of platform.agents) {
      figures.agents += 1;
      if (agent.state === 'deleted') figures.deleted += 1;
      const actions = byAgent.get(agent.id) ?? [];
      const label = `${platform.name} agent ${agent.id} (${agent.kind}, ${agent.state})`;
      for (const action of actions) {
        figures.actions[action.status] = (figures.actions[action.status] ?? 0) + 1;
        if (action.customer_id !== agent.customer.id || action.platform_id !== platform.platformId)
          failures.push(`${label}: action ${action.id} is of customer ${action.customer_id}, not the agent's ${agent.customer.id}`);
        if (action.status === 'APPROVED' && (action.execution_due || !action.transaction_id))
          failures.push(`${label}: action ${action.id} APPROVED but never executed (execution due: ${action.execution_due})`);
        if (action.status === 'PENDING_APPROVAL') {
          if (platform.decidedActions.has(action.id))
            failures.push(`${label}: action ${action.id} still PENDING_APPROVAL although the platform decided it`);
          else figures.pendingNeverDecided += 1;
        }
        if (action.transaction_customer && action.transaction_customer !== agent.customer.id)
          failures.push(
            `${label}: action ${action.id}'s transaction ${action.transaction_id} is of customer ${action.transaction_customer}`,
          );
      }
      // Exactly once: actions no user was answered are explained only by lost answers or payments' refusals (stored FAILED).
      const unanswered = actions.filter((action) => !agent.answered.has(action.id));
      const unansweredFailed = unanswered.filter((action) => action.status === 'FAILED').length;
      const unansweredOther = unanswered.length - unansweredFailed;
      if (unansweredOther > agent.lost || unanswered.length > agent.lost + agent.refusedByPayments) {
        failures.push(
          `${label}: ${unanswered.length} actions in the store no user was answered (${unansweredFailed} FAILED), ${agent.lost} answers ` +
            (`lost and ${agent.refusedByPayments} refused by payments explain ${agent.lost + agent.refusedByPayments} (a retry that took ` +
              `effect twice?): ${unanswered
                .slice(0, 3)
                .map((action) => `${action.id} ${action.status}`)
                .join(', ')}`),
        );
      } else figures.unansweredExplained += unanswered.length;
      for (const action of actions) if (action.transaction_id) platform.transactionIds.add(action.transaction_id);
      const executedQuotes = new Set(actions.filter((action) => action.quote_id && action.transaction_id).map((action) => action.quote_id));
      for (const [quoteId, transactionId] of agent.quotes) if (!executedQuotes.has(quoteId)) platform.quotesNotExecuted.add(transactionId);

      // Usage: reserved for APPROVED and PENDING_APPROVAL actions of today, given back for REJECTED and FAILED.
      const counted = actions.filter((action) => action.today && (action.status === 'APPROVED' || action.status === 'PENDING_APPROVAL'));
      const orphan = orphans.get(agent.id) ?? { count: 0, amount: 0n };
      figures.orphanReservations += orphan.count;
      const expected = {
        spend: counted.reduce((sum, action) => sum + BigInt(action.charge), 0n) + orphan.amount,
        count: counted.length + orphan.count,
      };
      const usages: [string, Usage | undefined][] = [];
      const stored = dbUsage.get(agent.id);
      usages.push([
        'agent_usage_daily',
        stored
          ? { dailySpend: Number(stored.spend), dailyTransactionCount: stored.transaction_count, monthlySpend: Number.NaN }
          : { dailySpend: 0, dailyTransactionCount: 0, monthlySpend: Number.NaN },
      ]);
      if (agent.state !== 'deleted') {
        const byPlatform = await client.call('GET /agents/{id} (end check)', platform.auth, 'GET', `/agents/${agent.id}`);
        if (byPlatform.status !== 200) failures.push(`${label}: GET /agents/{id} answered ${byPlatform.status}`);
        else usages.push(['GET /agents/{id}', byPlatform.body.usage]);
        if (agent.bearer) {
          figures.live += 1;
          const own = await client.call('GET /agents/me (end check)', agent.bearer, 'GET', '/agents/me');
          if (own.status !== 200) failures.push(`${label}: GET /agents/me answered ${own.status}`);
          else usages.push(['GET /agents/me', own.body.usage]);
        }
      }
      for (const [where, usage] of usages) {
        if (!usage) continue;
        figures.usageChecked += 1;
        if (BigInt(usage.dailySpend) !== expected.spend || usage.dailyTransactionCount !== expected.count) {
          failures.push(
            `${label}: ${where} shows ${usage.dailySpend} spent in ${usage.dailyTransactionCount} today; its APPROVED and ` +
              `PENDING_APPROVAL actions of today charge ${expected.spend} in ${expected.count}` +
              `${orphan.count ? ` (${orphan.count} reservations held for no live action included)` : ''}`,
          );
        }
        if (usage.dailySpend > agent.dailyLimit || usage.dailyTransactionCount > agent.dailyTransactionLimit)
          failures.push(
            `${label}: ${where} shows ${usage.dailySpend} in ${usage.dailyTransactionCount} today, above its daily ` +
              `limit ${agent.dailyLimit} / ${agent.dailyTransactionLimit}`,
          );
      }
    }
    // Transactions carrying agentId: of that agent's customer, on that agent's platform.
    for (const transaction of await listTransactions(client, platform)) {
      if (!transaction.agentId) continue;
      figures.agentTransactions += 1;
      const agent = known.get(transaction.agentId);
      if (!agent)
        failures.push(
          `${platform.name}: transaction ${transaction.id} carries agentId ${transaction.agentId}, not an agent of this platform`,
        );
      else if (transaction.customerId !== agent.customer.id)
        failures.push(
          `${platform.name}: transaction ${transaction.id} of customer ${transaction.customerId} carries agent ${agent.id} of ` +
            `customer ${agent.customer.id}`,
        );
    }
  }
  return {
    name: "every agent action terminal or explainably pending, usage within the policy, agent transactions their agent's",
    failures: listed(failures),
    figures,
  };
};

/**
 * Agent tokens reach only their own customer's resources and no platform
 * route; a deleted agent's token is dead; another platform's agent is 404.
 */
export const checkAgentTenancy = async (client: SoakClient, platforms: SoakPlatform[]): Promise<CheckResult> => {
  const failures: string[] = [];
  let probes = 0;
  const probe = async (operation: string, auth: Parameters<SoakClient['call']>[1], path: string, status: number, what: string) => {
    probes += 1;
    const reply = await client.call(operation, auth, 'GET', path);
    if (reply.status !== status) failures.push(`${what}: GET ${path} answered ${reply.status}, not ${status}`);
  };
  for (const platform of platforms) {
    const live = platform.agents.filter((agent) => agent.state === 'live' && agent.bearer).slice(0, 5);
    for (const agent of live) {
      const bearer = agent.bearer!;
      const others = platform.agents.filter((other) => other.customer.id !== agent.customer.id);
      const otherTransaction = others.flatMap((other) => [...other.quotes.values()])[0];
      if (otherTransaction)
        await probe(
          'GET /agents/me/transactions/{id} (other customer)',
          bearer,
          `/agents/me/transactions/${otherTransaction}`,
          404,
          `${platform.name} agent ${agent.id} on another customer's transaction`,
        );
      const otherQuote = others.flatMap((other) => [...other.quotes.keys()])[0];
      if (otherQuote)
        await probe(
          'GET /agents/me/quotes/{id} (other customer)',
          bearer,
          `/agents/me/quotes/${otherQuote}`,
          404,
          `${platform.name} agent ${agent.id} on another customer's quote`,
        );
      const otherBank = platform.customers.find((customer) => customer.id !== agent.customer.id && customer.banks.length > 0)?.banks[0];
      if (otherBank)
        await probe(
          'GET /agents/me/external-accounts/{id} (other customer)',
          bearer,
          `/agents/me/external-accounts/${otherBank}`,
          404,
          `${platform.name} agent ${agent.id} on another customer's external account`,
        );
      for (const path of ['/customers', '/transactions', '/agents', `/agents/${agent.id}`])
        await probe('GET platform route (agent token)', bearer, path, 401, `${platform.name} agent ${agent.id} on a platform route`);
    }
    for (const agent of platform.agents.filter((candidate) => candidate.state === 'deleted' && candidate.bearer))
      await probe(
        'GET /agents/me (deleted agent, end check)',
        agent.bearer!,
        '/agents/me',
        401,
        `${platform.name} deleted agent ${agent.id}`,
      );
    for (const other of platforms.filter((candidate) => candidate !== platform)) {
      for (const agent of other.agents.slice(0, 3))
        await probe(
          'GET /agents/{id} (other tenant)',
          platform.auth,
          `/agents/${agent.id}`,
          404,
          `${platform.name} on ${other.name}'s agent`,
        );
    }
  }
  return {
    name: "agent tokens see only their customer, never platform routes; deleted tokens dead; other platforms' agents 404",
    failures: listed(failures),
    figures: { probes },
  };
};
