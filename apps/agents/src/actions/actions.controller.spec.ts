// Given a transfer whose usage was reserved but whose action could not be recorded, the agent
// hears why the action was not recorded: the reservation is given back, and when giving it back
// fails as well (logged; the executor's sweep releases it later) the first error still answers.
import type { AgentExecuteQuoteData, AgentTransferData, RequestContext, ServiceRequest } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import type { ActingAgent } from '../agents/acting-agent';
import type { AgentOptions } from '../agents/agent-options';
import type { AgentView } from '../agents/agent';
import type { AgentParties } from '../parties';
import type { UsageLedger } from '../usage/usage-ledger';
import type { ActionView } from './action';
import type { ActionExecutor } from './action-executor';
import { ActionsController } from './actions.controller';

const agent = {
  id: 'Agent:a',
  platformId: 'Platform:p',
  customerId: 'Customer:c',
  isPaused: false,
  isConnected: true,
  deleted: false,
  policy: {
    permissions: ['CREATE_TRANSFERS'],
    defaultExecutionMode: 'AUTO',
    spendingLimits: { currency: 'USD', perTransactionLimit: '1000' },
  },
} as unknown as AgentView;
const context: RequestContext = {
  platformId: 'Platform:p',
  actor: { kind: 'agent', agentId: 'Agent:a' },
  requestId: 'r',
  correlationId: 'c',
};
const request: ServiceRequest<AgentTransferData> = {
  context,
  data: { source: { accountId: 'InternalAccount:s' }, destination: { accountId: 'ExternalAccount:d' }, amount: 100 },
};

const controllerWith = (fakes: { append: () => Promise<never>; release: () => Promise<boolean> }) => {
  const released: string[] = [];
  const parties = {
    customer: async () => ({ platformCustomerId: 'customer-1' }),
    internalAccount: async () => ({ id: 'InternalAccount:s', customerId: agent.customerId, balance: { currency: { code: 'USD' } } }),
    externalAccount: async () => ({ id: 'ExternalAccount:d', customerId: agent.customerId, currency: 'USD' }),
  } as unknown as AgentParties;
  const usage = {
    reserve: async (_agentId: string, _actionId: string, _now: Date, decide: (usage: unknown) => unknown) =>
      decide({ dailyCount: 0, dailySpend: 0n, monthlySpend: 0n }),
    release: async (actionId: string) => {
      released.push(actionId);
      return fakes.release();
    },
  } as unknown as UsageLedger;
  const controller = new ActionsController(
    { handle: fakes.append } as unknown as EventSourcing,
    { authorize: async () => agent } as unknown as ActingAgent,
    parties,
    usage,
    {} as ActionExecutor,
    { schema: 'agents' } as AgentOptions,
    { now: () => new Date('2026-03-01T10:00:00.000Z') },
  );
  return { controller, released };
};

describe('ActionsController: an action that could not be recorded', () => {
  const appendFailed = new Error('The event store refused the append.');

  it('gives its reservation back and answers with the append error', async () => {
    const { controller, released } = controllerWith({ append: () => Promise.reject(appendFailed), release: async () => true });
    await expect(controller.transferOut(request)).rejects.toBe(appendFailed);
    expect(released).toHaveLength(1);
  });

  it('still answers with the append error when giving the reservation back fails too', async () => {
    const { controller, released } = controllerWith({
      append: () => Promise.reject(appendFailed),
      release: () => Promise.reject(new Error('The pool is closed.')),
    });
    await expect(controller.transferOut(request)).rejects.toBe(appendFailed);
    expect(released).toHaveLength(1);
  });
});

// Given an execute whose first attempt recorded and executed its action but whose answer never
// arrived (a replica killed), when the agent retries under the same Idempotency-Key, then it hears
// that action again, not a 409 for the quote its own first attempt executed.
describe('ActionsController: a retried execute whose first attempt took effect', () => {
  const retried: ServiceRequest<AgentExecuteQuoteData> = {
    context: { ...context, idempotencyKey: 'key-1', requestFingerprint: 'fingerprint-1' },
    data: { quoteId: 'Quote:01920000-0000-7000-8000-000000000001' },
  };
  const recorded = {
    id: 'AgentAction:recorded',
    agentId: agent.id,
    platformId: context.platformId,
    customerId: agent.customerId,
    platformCustomerId: 'customer-1',
    type: 'EXECUTE_QUOTE',
    status: 'APPROVED',
    request: { kind: 'EXECUTE_QUOTE', quoteId: retried.data.quoteId },
    requestFingerprint: 'fingerprint-1',
    createdAt: '2026-03-01T10:00:00.000Z',
    updatedAt: '2026-03-01T10:00:01.000Z',
  } as unknown as ActionView;

  const controllerFor = (fingerprint: string) => {
    const executed: string[] = [];
    const controller = new ActionsController(
      {
        load: async () => ({ state: { kind: 'Exists', action: { ...recorded, requestFingerprint: fingerprint } } }),
        em: { findOne: async () => ({ quoteId: retried.data.quoteId }) },
      } as unknown as EventSourcing,
      { authorize: async () => agent } as unknown as ActingAgent,
      {
        customer: async () => ({ platformCustomerId: 'customer-1' }),
        // The quote as payments shows it now: the first attempt executed it.
        quote: async () => ({
          id: retried.data.quoteId,
          status: 'COMPLETED',
          source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:s' },
        }),
      } as unknown as AgentParties,
      {} as UsageLedger,
      { execute: async (actionId: string) => (executed.push(actionId), { action: recorded }) } as unknown as ActionExecutor,
      { schema: 'agents' } as AgentOptions,
      { now: () => new Date('2026-03-01T10:00:05.000Z') },
    );
    return { controller, executed };
  };

  it('answers the recorded action again (the executor resumes it; nothing is judged or reserved twice)', async () => {
    const { controller, executed } = controllerFor('fingerprint-1');
    await expect(controller.executeQuote(retried)).resolves.toMatchObject({ id: recorded.id, status: 'APPROVED' });
    expect(executed).toHaveLength(1);
  });

  it('refuses another request under the same key with 409, executing nothing', async () => {
    const { controller, executed } = controllerFor('another-fingerprint');
    await expect(controller.executeQuote(retried)).rejects.toMatchObject({ status: 409 });
    expect(executed).toHaveLength(0);
  });
});
