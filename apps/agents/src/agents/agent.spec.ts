// Given an agent's history, when the platform (or the agent software) acts, then these events —
// or this refusal. Device codes: the newest unexpired, unredeemed code works once.
import type { AgentPolicy } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import { type AgentEvent, type AgentView, agentDecider, createAgent, deleteAgent, issueDeviceCode, redeemDeviceCode, updateAgent, updateAgentPolicy } from './agent';

const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-01T11:00:00.000Z');
const agentId = 'Agent:019542f5-b3e7-1d02-0000-000000000001';
const platformId = 'Platform:p';
const policy: AgentPolicy = { permissions: ['CREATE_TRANSFERS'], defaultExecutionMode: 'AUTO', spendingLimits: { currency: 'USD', perTransactionLimit: 1_000 } };
const code = { code: 'AGENT-AAAA-BBBB-CCCC', expiresAt: '2026-03-02T10:00:00.000Z', redeemed: false };
const agent: AgentView = { id: agentId, platformId, customerId: 'Customer:c', environment: 'SANDBOX', name: 'Payroll', isPaused: false, isConnected: false, deleted: false, policy, deviceCode: code, createdAt: now.toISOString(), updatedAt: now.toISOString() };
const created: AgentEvent = { type: 'AgentCreated', data: { agent } };
const connected: AgentEvent = { type: 'AgentConnected', data: { agent: { ...agent, isConnected: true, deviceCode: { ...code, redeemed: true }, tokenHash: 'h1', updatedAt: later.toISOString() } } };

const spec = <C extends { type: string; data: object; metadata: object }>(decide: (command: C, state: ReturnType<typeof agentDecider.initialState>) => AgentEvent[]) =>
  deciderSpec({ ...agentDecider, decide: decide as never });

describe('createAgent', () => {
  it('creates an unpaused, unconnected agent with its first device code', () => {
    spec(createAgent).given().when({ type: 'CreateAgent', data: { agentId, platformId, customerId: 'Customer:c', environment: 'SANDBOX', name: ' Payroll ', policy, deviceCode: code }, metadata: { now } } as never).then([created]);
  });
  it('refuses a blank name', () => {
    spec(createAgent).given().when({ type: 'CreateAgent', data: { agentId, platformId, customerId: 'Customer:c', environment: 'SANDBOX', name: '  ', policy, deviceCode: code }, metadata: { now } } as never).thenThrows((error) => error.status === 400);
  });
});

describe('updateAgent', () => {
  it('pauses', () => {
    spec(updateAgent).given([created]).when({ type: 'UpdateAgent', data: { agentId, platformId, isPaused: true }, metadata: { now: later } } as never).then([{ type: 'AgentUpdated', data: { agent: { ...agent, isPaused: true, updatedAt: later.toISOString() } } }]);
  });
  it('records nothing for the same values', () => {
    spec(updateAgent).given([created]).when({ type: 'UpdateAgent', data: { agentId, platformId, name: 'Payroll', isPaused: false }, metadata: { now: later } } as never).thenNothingHappened();
  });
  it("is a 404 for another platform's agent and for a deleted one", () => {
    spec(updateAgent).given([created]).when({ type: 'UpdateAgent', data: { agentId, platformId: 'Platform:other', isPaused: true }, metadata: { now } } as never).thenThrows((error) => error.status === 404);
    spec(updateAgent).given([created, { type: 'AgentDeleted', data: { agent: { ...agent, deleted: true } } }]).when({ type: 'UpdateAgent', data: { agentId, platformId, isPaused: true }, metadata: { now } } as never).thenThrows((error) => error.status === 404);
  });
});

describe('updateAgentPolicy', () => {
  it('applies a partial update', () => {
    spec(updateAgentPolicy).given([created]).when({ type: 'UpdateAgentPolicy', data: { agentId, platformId, update: { defaultExecutionMode: 'APPROVAL_REQUIRED' } }, metadata: { now: later } } as never).then([
      { type: 'AgentPolicyUpdated', data: { agent: { ...agent, policy: { ...policy, defaultExecutionMode: 'APPROVAL_REQUIRED' }, updatedAt: later.toISOString() } } },
    ]);
  });
});

describe('device codes', () => {
  const fresh = { code: 'AGENT-DDDD-EEEE-FFFF', expiresAt: '2026-03-02T11:00:00.000Z', redeemed: false };
  const reissued: AgentEvent = { type: 'AgentDeviceCodeIssued', data: { agent: { ...agent, deviceCode: fresh, updatedAt: later.toISOString() }, supersededCode: code.code } };
  const redeem = (value: string, at = later) => ({ type: 'RedeemDeviceCode', data: { agentId, code: value, tokenHash: 'h1' }, metadata: { now: at } }) as never;

  it('a new code replaces the current one', () => {
    spec(issueDeviceCode).given([created]).when({ type: 'IssueDeviceCode', data: { agentId, platformId, deviceCode: fresh }, metadata: { now: later } } as never).then([reissued]);
  });
  it('a connected agent gets no new code (409)', () => {
    spec(issueDeviceCode).given([created, connected]).when({ type: 'IssueDeviceCode', data: { agentId, platformId, deviceCode: fresh }, metadata: { now: later } } as never).thenThrows((error) => error.status === 409);
  });
  it('redeeming the current code connects the agent with the token hash', () => {
    spec(redeemDeviceCode).given([created]).when(redeem(code.code)).then([connected]);
  });
  it('a second redeem is 400', () => {
    spec(redeemDeviceCode).given([created, connected]).when(redeem(code.code)).thenThrows((error) => error.status === 400 && /already redeemed/.test(error.message));
  });
  it('an older code after a regeneration is 400; the new one works', () => {
    spec(redeemDeviceCode).given([created, reissued]).when(redeem(code.code)).thenThrows((error) => error.status === 400 && /replaced/.test(error.message));
    spec(redeemDeviceCode).given([created, reissued]).when(redeem(fresh.code)).then([{ type: 'AgentConnected', data: { agent: { ...agent, deviceCode: { ...fresh, redeemed: true }, isConnected: true, tokenHash: 'h1', updatedAt: later.toISOString() } } }]);
  });
  it('an expired code is 400 at its expiry instant, and works a millisecond before', () => {
    spec(redeemDeviceCode).given([created]).when(redeem(code.code, new Date(code.expiresAt))).thenThrows((error) => error.status === 400 && /expired/.test(error.message));
    spec(redeemDeviceCode).given([created]).when(redeem(code.code, new Date(Date.parse(code.expiresAt) - 1))).then([
      { type: 'AgentConnected', data: { agent: { ...agent, isConnected: true, deviceCode: { ...code, redeemed: true }, tokenHash: 'h1', updatedAt: new Date(Date.parse(code.expiresAt) - 1).toISOString() } } },
    ]);
  });
  it("a deleted agent's code is 400", () => {
    spec(redeemDeviceCode).given([created, { type: 'AgentDeleted', data: { agent: { ...agent, deleted: true } } }]).when(redeem(code.code)).thenThrows((error) => error.status === 400);
  });
});

describe('deleteAgent', () => {
  it('deletes and disconnects', () => {
    spec(deleteAgent).given([created, connected]).when({ type: 'DeleteAgent', data: { agentId, platformId }, metadata: { now: later } } as never).then([
      { type: 'AgentDeleted', data: { agent: { ...(connected.data.agent as AgentView), deleted: true, isConnected: false, updatedAt: later.toISOString() } } },
    ]);
  });
});
