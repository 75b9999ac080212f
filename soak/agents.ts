import type { Reply } from './client';
import type { Operation, SoakContext } from './context';
import type { SoakCustomer, SoakPlatform } from './workload';

// Agents in the soak (decision 0016): platforms create agents for their funded customers under
// three kinds of policy, install them (device code → Bearer token), and the agents read, quote,
// execute and transfer under their policy while the platform approves or rejects what waits,
// pauses, tightens nothing (limits only rise, so the end check can hold usage to the highest limit
// the agent ever had), and now and then deletes an agent. A policy refusal (403 with the
// reference code) is an outcome, not an error.

export type SoakAgentKind = 'AUTO' | 'APPROVAL' | 'THRESHOLD';
export type SoakAgent = {
  id: string;
  platform: SoakPlatform;
  customer: SoakCustomer;
  kind: SoakAgentKind;
  /** The Authorization header value once a code was redeemed. */
  bearer?: string;
  state: 'connecting' | 'live' | 'deleted' | 'lost';
  /** The highest daily limits the agent ever had (policy updates only raise them). */
  dailyLimit: number;
  dailyTransactionLimit: number;
  /** Every action a submit or an approve answered to a user, with the status last seen. */
  answered: Map<string, string>;
  /** Submits whose answer never came (5xx after every retry): each may have left an action. */
  lost: number;
  /** Submits payments refused at once (the agent hears payments' 4xx, the action is stored FAILED). */
  refusedByPayments: number;
  /** Quotes the agent created: quote id → its transaction id. */
  quotes: Map<string, string>;
  busy: boolean;
};

const PERMISSIONS = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'];
const policyOf = (kind: SoakAgentKind) => {
  if (kind === 'AUTO')
    return {
      permissions: PERMISSIONS,
      defaultExecutionMode: 'AUTO',
      spendingLimits: {
        currency: 'USD',
        perTransactionLimit: 3_000,
        dailyLimit: 15_000,
        dailyTransactionLimit: 8,
        monthlyLimit: 1_000_000,
      },
    };
  if (kind === 'APPROVAL')
    return {
      permissions: PERMISSIONS,
      defaultExecutionMode: 'APPROVAL_REQUIRED',
      spendingLimits: {
        currency: 'USD',
        perTransactionLimit: 5_000,
        dailyLimit: 40_000,
        dailyTransactionLimit: 25,
        monthlyLimit: 1_000_000,
      },
    };
  return {
    permissions: PERMISSIONS,
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: 'USD', perTransactionLimit: 3_000, dailyLimit: 30_000, dailyTransactionLimit: 20, monthlyLimit: 1_000_000 },
    approvalThresholds: { currency: 'USD', amount: 1_500 },
  };
};
/** Policy refusals an agent expects: over a limit, paused, or deleted while it was acting. */
const POLICY_CODES = new Set(['VELOCITY_LIMIT_EXCEEDED', 'FORBIDDEN']);

const live = (platform: SoakPlatform) => platform.agents.filter((agent) => agent.state === 'live' && !agent.busy);

/**
 * Redeems a code; a redeem retried after a lost answer finds its code spent, so a new code is asked
 * for (409 once the lost redeem connected the agent: its token is gone, the agent is deleted).
 */
const install = async (ctx: SoakContext, agent: SoakAgent, code: string): Promise<void> => {
  const { client, stats, expect } = ctx;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const redeemed = await client.call('POST /agents/device-codes/{code}/redeem', null, 'POST', `/agents/device-codes/${code}/redeem`);
    if (redeemed.status === 200) {
      agent.bearer = `Bearer ${redeemed.body.accessToken as string}`;
      agent.state = 'live';
      return;
    }
    if (!(redeemed.retried && redeemed.status === 400) && !expect('POST /agents/device-codes/{code}/redeem', redeemed, [200])) return;
    stats.outcome('agent redeem answer lost: code spent, regenerated');
    const regenerated = await client.call(
      'POST /agents/{id}/device-codes',
      agent.platform.auth,
      'POST',
      `/agents/${agent.id}/device-codes`,
    );
    if (regenerated.status === 409) {
      // The lost redeem connected the agent; nobody holds its token. Deleted, as a platform would.
      stats.outcome('agent token lost with its redeem answer: agent deleted');
      await remove(ctx, agent);
      return;
    }
    if (!expect('POST /agents/{id}/device-codes', regenerated, [201])) return;
    code = regenerated.body.code as string;
  }
};

const remove = async (ctx: SoakContext, agent: SoakAgent): Promise<void> => {
  const { client, stats, expect } = ctx;
  const deleted = await client.call('DELETE /agents/{id}', agent.platform.auth, 'DELETE', `/agents/${agent.id}`);
  if (!expect('DELETE /agents/{id}', deleted, [204])) return;
  agent.state = 'deleted';
  if (agent.bearer) {
    const after = await client.call('GET /agents/me (deleted agent)', agent.bearer, 'GET', '/agents/me');
    if (after.status !== 401) stats.surprise("a deleted agent's token still works", `${agent.id}: GET /agents/me answered ${after.status}`);
  }
};

const submitted = (ctx: SoakContext, operation: string, agent: SoakAgent, reply: Reply): void => {
  const { stats, expect } = ctx;
  if (reply.status === 200 || reply.status === 201) {
    const action = reply.body as { id: string; status: string; transaction?: { id: string } };
    agent.answered.set(action.id, action.status);
    if (action.transaction) agent.platform.transactionIds.add(action.transaction.id);
    return;
  }
  if (reply.status === 403 && POLICY_CODES.has(reply.body?.code)) {
    const why =
      reply.body.details?.limit ?? (reply.body.details?.isPaused ? 'paused' : reply.body.details?.accountId ? 'account' : 'other');
    stats.outcome(`agent refused ${reply.body.code} ${why}`);
    return;
  }
  if (reply.status === 401 && agent.state === 'deleted') return stats.outcome('agent acted after its deletion: 401');
  if (reply.status === 400 || reply.status === 409) {
    // Refused by payments when executed at once (funds short on a busy account, a quote expired): the action is FAILED.
    agent.refusedByPayments += 1;
    stats.outcome(`agent action refused by payments ${reply.body?.code ?? reply.status}`);
    return;
  }
  if (reply.status >= 500 || reply.status === 0) agent.lost += 1;
  expect(operation, reply, [200, 201]);
};

const runAgentCreate = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, next, pick, expect } = ctx;
  const customer = pick(
    platform.customers.filter((candidate) => candidate.usd && candidate.eur && candidate.funded && candidate.banks.length > 0),
  );
  if (!customer) return;
  const kind = pick<SoakAgentKind>(['AUTO', 'AUTO', 'APPROVAL', 'THRESHOLD'])!;
  const policy = policyOf(kind);
  const created = await client.call('POST /agents', platform.auth, 'POST', '/agents', {
    body: { name: `Soak bot ${next()}`, customerId: customer.id, policy },
  });
  if (created.status >= 500 || created.status === 0) platform.agentCreatesLost += 1;
  if (!expect('POST /agents', created, [201])) return;
  const agent: SoakAgent = {
    id: created.body.agent.id,
    platform,
    customer,
    kind,
    state: 'connecting',
    dailyLimit: policy.spendingLimits.dailyLimit,
    dailyTransactionLimit: policy.spendingLimits.dailyTransactionLimit,
    answered: new Map(),
    lost: 0,
    refusedByPayments: 0,
    quotes: new Map(),
    busy: true,
  };
  platform.agents.push(agent);
  try {
    await install(ctx, agent, created.body.deviceCode.code as string);
  } finally {
    agent.busy = false;
  }
};

const runAgentRead = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick, expect } = ctx;
  const agent = pick(live(platform));
  if (!agent?.bearer) return;
  const reads: [string, string][] = [
    ['GET /agents/me', '/agents/me'],
    ['GET /agents/me/actions', `/agents/me/actions?limit=20${random() < 0.3 ? '&status=PENDING_APPROVAL' : ''}`],
    ['GET /agents/me/transactions', '/agents/me/transactions?limit=20'],
    ['GET /agents/me/internal-accounts', '/agents/me/internal-accounts'],
    ['GET /agents/me/external-accounts', '/agents/me/external-accounts'],
  ];
  const [operation, path] = pick(reads)!;
  const reply = await client.call(operation, agent.bearer, 'GET', path);
  if (reply.status === 401 && agent.state === 'deleted') return;
  expect(operation, reply, [200]);
};

const runAgentTransferOut = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick } = ctx;
  const agent = pick(live(platform));
  if (!agent?.bearer || !agent.customer.usd) return;
  const amount = 100 + Math.floor(random() * 3_400);
  const reply = await client.call('POST /agents/me/transfer-out', agent.bearer, 'POST', '/agents/me/transfer-out', {
    body: { source: { accountId: agent.customer.usd }, destination: { accountId: pick(agent.customer.banks) }, amount },
  });
  submitted(ctx, 'POST /agents/me/transfer-out', agent, reply);
};

const runAgentTransferIn = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, random, pick } = ctx;
  const agent = pick(live(platform));
  if (!agent?.bearer || !agent.customer.usd) return;
  const reply = await client.call('POST /agents/me/transfer-in', agent.bearer, 'POST', '/agents/me/transfer-in', {
    body: {
      source: { accountId: pick(agent.customer.banks) },
      destination: { accountId: agent.customer.usd },
      amount: 100 + Math.floor(random() * 1_900),
    },
  });
  submitted(ctx, 'POST /agents/me/transfer-in', agent, reply);
};

const runAgentQuote = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, random, pick, expect } = ctx;
  const agent = pick(live(platform));
  if (!agent?.bearer || !agent.customer.usd || !agent.customer.eur) return;
  const quote = await client.call('POST /agents/me/quotes', agent.bearer, 'POST', '/agents/me/quotes', {
    body: {
      source: { sourceType: 'ACCOUNT', accountId: agent.customer.usd },
      destination: { destinationType: 'ACCOUNT', accountId: agent.customer.eur },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 500 + Math.floor(random() * 2_000),
    },
  });
  if (quote.status === 403 && POLICY_CODES.has(quote.body?.code)) return stats.outcome(`agent quote refused ${quote.body.code}`);
  if (!expect('POST /agents/me/quotes', quote, [201])) return;
  agent.quotes.set(quote.body.id, quote.body.transactionId);
  platform.transactionIds.add(quote.body.transactionId);
  if (random() < 0.2) return;
  expect(
    'GET /agents/me/quotes/{id}',
    await client.call('GET /agents/me/quotes/{id}', agent.bearer, 'GET', `/agents/me/quotes/${quote.body.id}`),
    [200],
  );
  const executed = await client.call(
    'POST /agents/me/quotes/{id}/execute',
    agent.bearer,
    'POST',
    `/agents/me/quotes/${quote.body.id}/execute`,
  );
  submitted(ctx, 'POST /agents/me/quotes/{id}/execute', agent, executed);
};

const runAgentApprovals = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, random, pick, expect } = ctx;
  const listed = await client.call(
    'GET /agents/approvals',
    platform.auth,
    'GET',
    `/agents/approvals?limit=20&sortOrder=${random() < 0.5 ? 'asc' : 'desc'}`,
  );
  if (!expect('GET /agents/approvals', listed, [200])) return;
  const action = pick((listed.body.data ?? []) as { id: string; agentId: string }[]);
  if (!action) return;
  const agent = platform.agents.find((candidate) => candidate.id === action.agentId);
  platform.decidedActions.add(action.id);
  const verb = random() < 0.7 ? 'approve' : 'reject';
  const operation = `POST /agents/{id}/actions/{id}/${verb}`;
  const reply = await client.call(
    operation,
    platform.auth,
    'POST',
    `/agents/${action.agentId}/actions/${action.id}/${verb}`,
    verb === 'reject' ? { body: { reason: 'Soak says no' } } : {},
  );
  // 409: another user decided it first, or this is a retry after a lost answer (the first took effect).
  if (reply.status === 409) return stats.outcome(`agent ${verb}: already decided (409)${reply.retried ? ' after a retry' : ''}`);
  if (!expect(operation, reply, [200])) return;
  if (agent) agent.answered.set(reply.body.id, reply.body.status);
  if (reply.body.transaction) platform.transactionIds.add(reply.body.transaction.id);
};

const runAgentManage = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, stats, random, pick, expect } = ctx;
  const agent = pick(live(platform));
  if (!agent) return;
  const roll = random();
  if (roll < 0.35) {
    const paused = await client.call('PATCH /agents/{id} (pause)', platform.auth, 'PATCH', `/agents/${agent.id}`, {
      body: { isPaused: true },
    });
    if (!expect('PATCH /agents/{id} (pause)', paused, [200])) return;
    await new Promise((resolve) => setTimeout(resolve, 500 + random() * 2_000));
    const unpaused = await client.call('PATCH /agents/{id} (unpause)', platform.auth, 'PATCH', `/agents/${agent.id}`, {
      body: { isPaused: false },
    });
    // Another virtual user may have deleted the agent during the pause.
    if (unpaused.status === 404 && agent.state === 'deleted') return stats.outcome('agent deleted while paused: unpause 404');
    expect('PATCH /agents/{id} (unpause)', unpaused, [200]);
  } else if (roll < 0.6) {
    // Limits only rise: the end check holds usage to the highest limit the agent had.
    const dailyLimit = agent.dailyLimit + 1_000 * (1 + Math.floor(random() * 5));
    const dailyTransactionLimit = agent.dailyTransactionLimit + Math.floor(random() * 3);
    const body = {
      spendingLimits: { dailyLimit, dailyTransactionLimit },
      ...(agent.kind === 'THRESHOLD' ? { approvalThresholds: { currency: 'USD', amount: 1_000 + Math.floor(random() * 1_000) } } : {}),
    };
    const updated = await client.call('PATCH /agents/{id}/policy', platform.auth, 'PATCH', `/agents/${agent.id}/policy`, { body });
    if (!expect('PATCH /agents/{id}/policy', updated, [200])) return;
    agent.dailyLimit = Math.max(agent.dailyLimit, dailyLimit);
    agent.dailyTransactionLimit = Math.max(agent.dailyTransactionLimit, dailyTransactionLimit);
  } else if (roll < 0.85) {
    expect('GET /agents/{id}', await client.call('GET /agents/{id}', platform.auth, 'GET', `/agents/${agent.id}`), [200]);
  } else {
    expect(
      'GET /agents',
      await client.call('GET /agents', platform.auth, 'GET', `/agents?customerId=${encodeURIComponent(agent.customer.id)}&limit=20`),
      [200],
    );
  }
};

const runAgentDelete = async (ctx: SoakContext, platform: SoakPlatform): Promise<void> => {
  const { client, pick, expect } = ctx;
  // Only an agent with nothing in flight: its actions are all decided and executed, so the end checks can still account for them.
  const agent = pick(live(platform).filter((candidate) => candidate.answered.size > 0));
  if (!agent?.bearer) return;
  agent.busy = true;
  try {
    const open = await client.call('GET /agents/me/actions', agent.bearer, 'GET', '/agents/me/actions?limit=100');
    if (!expect('GET /agents/me/actions', open, [200])) return;
    const settled = (open.body.data as { status: string; transaction?: unknown }[]).every(
      (action) => action.status === 'REJECTED' || action.status === 'FAILED' || (action.status === 'APPROVED' && action.transaction),
    );
    if (!settled || open.body.hasMore) return;
    await remove(ctx, agent);
  } finally {
    agent.busy = false;
  }
};

export const createAgentOperations = (ctx: SoakContext): Record<string, Operation> => ({
  agentCreate: { weight: 2.5, run: (platform) => runAgentCreate(ctx, platform) },
  agentRead: { weight: 5, run: (platform) => runAgentRead(ctx, platform) },
  agentTransferOut: { weight: 6, run: (platform) => runAgentTransferOut(ctx, platform) },
  agentTransferIn: { weight: 2, run: (platform) => runAgentTransferIn(ctx, platform) },
  agentQuote: { weight: 3, run: (platform) => runAgentQuote(ctx, platform) },
  agentApprovals: { weight: 3, run: (platform) => runAgentApprovals(ctx, platform) },
  agentManage: { weight: 1.5, run: (platform) => runAgentManage(ctx, platform) },
  agentDelete: { weight: 0.4, run: (platform) => runAgentDelete(ctx, platform) },
});
