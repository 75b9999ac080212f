// Given an agent event recorded before policy limits were decimal strings, when the agents read
// model applies it (its version 2 rebuild replays every such event), then the row holds the agent
// with its limits as strings, as the decider reads it.
import { recordedEvents } from '@corridor/testing';
import type { AgentPolicy } from '@corridor/contracts';
import type { AgentView } from './agent';
import { evolveAgentView } from './agent-view.projection';

const at = '2026-03-01T10:00:00.000Z';
const agent: Omit<AgentView, 'policy'> = {
  id: 'Agent:019542f5-b3e7-1d02-0000-000000000001',
  platformId: 'Platform:p',
  customerId: 'Customer:c',
  environment: 'SANDBOX',
  name: 'Payroll',
  isPaused: false,
  isConnected: false,
  deleted: false,
  deviceCode: { code: 'AGENT-AAAA-BBBB-CCCC', expiresAt: '2026-03-02T10:00:00.000Z', redeemed: false },
  createdAt: at,
  updatedAt: at,
};
const wirePolicy: AgentPolicy = {
  permissions: ['CREATE_TRANSFERS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: null, dailyTransactionLimit: 3 },
  accountRestrictions: { accountRules: [{ accountId: 'InternalAccount:a', perTransactionLimit: 250 }] },
};

describe('evolveAgentView', () => {
  it('lifts a policy recorded with numbers to decimal strings', () => {
    const [row] = recordedEvents(
      agent.id,
      agent.platformId,
      [{ type: 'AgentCreated', data: { agent: { ...agent, policy: wirePolicy } } }],
      [at],
    ).map((recorded) => evolveAgentView(null, recorded));
    expect(row?.agent).toEqual({
      ...agent,
      policy: {
        permissions: ['CREATE_TRANSFERS'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: '1000', dailyLimit: null, dailyTransactionLimit: 3 },
        accountRestrictions: { accountRules: [{ accountId: 'InternalAccount:a', perTransactionLimit: '250' }] },
      },
    } satisfies AgentView);
  });
});
