// Given a transfer whose usage was reserved but whose action could not be recorded, the agent
// hears why the action was not recorded: the reservation is given back, and when giving it back
// fails as well (logged; the executor's sweep releases it later) the first error still answers.
import type { AgentTransferData, RequestContext, ServiceRequest } from '@corridor/contracts';
import type { EventSourcing } from '@corridor/event-store';
import type { ActingAgent } from '../agents/acting-agent';
import type { AgentOptions } from '../agents/agent-options';
import type { AgentView } from '../agents/agent';
import type { AgentParties } from '../parties';
import type { UsageLedger } from '../usage/usage-ledger';
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
