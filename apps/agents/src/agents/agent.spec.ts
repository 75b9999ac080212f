// Given an agent's history, when the platform (or the agent software) acts, then these events —
// or this refusal. Device codes: the newest unexpired, unredeemed code works once. Policies are
// recorded with amount limits as decimal strings, and agents recorded with numbers read the same.
import type { AgentPolicy } from '@corridor/contracts';
import type { StoredPolicy } from '../policy/policy';
import { deciderSpecFor } from '@corridor/testing';
import {
  type AgentEvent,
  type AgentView,
  type CreateAgent,
  type IssueDeviceCode,
  type RedeemDeviceCode,
  type UpdateAgentPolicy,
  agentDecider,
  createAgent,
  deleteAgent,
  issueDeviceCode,
  redeemDeviceCode,
  updateAgent,
  renderAgent,
  updateAgentPolicy,
  upcastAgent,
} from './agent';

const now = new Date('2026-03-01T10:00:00.000Z');
const later = new Date('2026-03-01T11:00:00.000Z');
const agentId = 'Agent:019542f5-b3e7-1d02-0000-000000000001';
const platformId = 'Platform:p';
const policy: AgentPolicy = {
  permissions: ['CREATE_TRANSFERS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 1_000 },
};
/** `policy` as the stream records it. */
const storedPolicy: StoredPolicy = {
  permissions: ['CREATE_TRANSFERS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: '1000' },
};
const everything = ['VIEW', 'TRANSACT', 'MANAGE'] as const;
const manageOnly = ['MANAGE'] as const;
const newCode = { code: 'AGENT-AAAA-BBBB-CCCC', expiresAt: '2026-03-02T10:00:00.000Z', redeemed: false };
const code = { ...newCode, issuerPermissions: [...everything] };
const agent: AgentView = {
  id: agentId,
  platformId,
  customerId: 'Customer:c',
  environment: 'SANDBOX',
  name: 'Payroll',
  isPaused: false,
  isConnected: false,
  deleted: false,
  policy: storedPolicy,
  deviceCode: code,
  createdAt: now.toISOString(),
  updatedAt: now.toISOString(),
};
const created: AgentEvent = { type: 'AgentCreated', data: { agent } };
const connected: AgentEvent = {
  type: 'AgentConnected',
  data: {
    agent: { ...agent, isConnected: true, deviceCode: { ...code, redeemed: true }, tokenHash: 'h1', updatedAt: later.toISOString() },
  },
};

type Grantor = readonly ('VIEW' | 'TRANSACT' | 'MANAGE')[];
const create = (name: string, grantorPermissions: Grantor, agentPolicy: AgentPolicy = policy): CreateAgent => ({
  type: 'CreateAgent',
  data: {
    ...{ agentId, platformId, customerId: 'Customer:c', environment: 'SANDBOX', name },
    ...{ policy: agentPolicy, deviceCode: newCode, grantorPermissions: [...grantorPermissions] },
  },
  metadata: { now },
});
const changePolicy = (update: UpdateAgentPolicy['data']['update'], grantorPermissions: Grantor): UpdateAgentPolicy => ({
  type: 'UpdateAgentPolicy',
  data: { agentId, platformId, update, grantorPermissions: [...grantorPermissions] },
  metadata: { now: later },
});
const reader: AgentPolicy = { ...policy, permissions: ['VIEW_TRANSACTIONS'] };
const storedReader: StoredPolicy = { ...storedPolicy, permissions: ['VIEW_TRANSACTIONS'] };
const forbiddenWithout = (permission: string) => (error: { status: number; message: string }) =>
  error.status === 403 && error.message.includes(permission);

const spec = deciderSpecFor(agentDecider);

describe('createAgent', () => {
  it('creates an unpaused, unconnected agent with its first device code', () => {
    spec(createAgent).given().when(create(' Payroll ', everything)).then([created]);
  });
  it('refuses a blank name', () => {
    spec(createAgent)
      .given()
      .when(create('  ', everything))
      .thenThrows((error) => error.status === 400);
  });
  it('refuses a MANAGE-only token an agent with money permissions (403 naming TRANSACT)', () => {
    spec(createAgent).given().when(create('Payroll', manageOnly)).thenThrows(forbiddenWithout('TRANSACT'));
  });
  it('answers a retry of the same keyed request with nothing new, and refuses another request under the key (409)', () => {
    const keyed = (fingerprint: string) => {
      const command = create('Payroll', everything);
      return { ...command, data: { ...command.data, requestFingerprint: fingerprint } };
    };
    const createdUnderKey: AgentEvent = { type: 'AgentCreated', data: { agent, requestFingerprint: 'f'.repeat(64) } };
    spec(createAgent)
      .given()
      .when(keyed('f'.repeat(64)))
      .then([createdUnderKey]);
    spec(createAgent)
      .given([createdUnderKey])
      .when(keyed('f'.repeat(64)))
      .thenNothingHappened();
    spec(createAgent)
      .given([createdUnderKey])
      .when(keyed('e'.repeat(64)))
      .thenThrows((error) => error.status === 409 && error.details?.['field'] === 'Idempotency-Key');
  });
  it('lets a MANAGE-only token create an agent that only reads', () => {
    const readerAgent = { ...agent, policy: storedReader, deviceCode: { ...newCode, issuerPermissions: [...manageOnly] } };
    spec(createAgent)
      .given()
      .when(create('Payroll', manageOnly, reader))
      .then([{ type: 'AgentCreated', data: { agent: readerAgent } }]);
  });
});

describe('updateAgent', () => {
  it('pauses', () => {
    spec(updateAgent)
      .given([created])
      .when({ type: 'UpdateAgent', data: { agentId, platformId, isPaused: true }, metadata: { now: later } })
      .then([{ type: 'AgentUpdated', data: { agent: { ...agent, isPaused: true, updatedAt: later.toISOString() } } }]);
  });
  it('records nothing for the same values', () => {
    spec(updateAgent)
      .given([created])
      .when({ type: 'UpdateAgent', data: { agentId, platformId, name: 'Payroll', isPaused: false }, metadata: { now: later } })
      .thenNothingHappened();
  });
  it("is a 404 for another platform's agent and for a deleted one", () => {
    spec(updateAgent)
      .given([created])
      .when({ type: 'UpdateAgent', data: { agentId, platformId: 'Platform:other', isPaused: true }, metadata: { now } })
      .thenThrows((error) => error.status === 404);
    spec(updateAgent)
      .given([created, { type: 'AgentDeleted', data: { agent: { ...agent, deleted: true } } }])
      .when({ type: 'UpdateAgent', data: { agentId, platformId, isPaused: true }, metadata: { now } })
      .thenThrows((error) => error.status === 404);
  });
});

describe('updateAgentPolicy', () => {
  it('refuses a MANAGE-only token a change to a money agent, or money permissions for another', () => {
    const raise = changePolicy({ spendingLimits: { perTransactionLimit: 9_999 } }, manageOnly);
    spec(updateAgentPolicy).given([created]).when(raise).thenThrows(forbiddenWithout('TRANSACT'));
    const readerCreated: AgentEvent = { type: 'AgentCreated', data: { agent: { ...agent, policy: storedReader } } };
    const addMoney = changePolicy({ permissions: ['EXECUTE_QUOTES'] }, manageOnly);
    spec(updateAgentPolicy).given([readerCreated]).when(addMoney).thenThrows(forbiddenWithout('TRANSACT'));
  });
  it('applies a partial update', () => {
    spec(updateAgentPolicy)
      .given([created])
      .when(changePolicy({ defaultExecutionMode: 'APPROVAL_REQUIRED' }, everything))
      .then([
        {
          type: 'AgentPolicyUpdated',
          data: {
            agent: { ...agent, policy: { ...storedPolicy, defaultExecutionMode: 'APPROVAL_REQUIRED' }, updatedAt: later.toISOString() },
          },
        },
      ]);
  });
});

describe('an agent recorded before limits were stored as decimal strings', () => {
  const wirePolicy = { ...policy, approvalThresholds: { currency: 'USD', amount: 500 } };
  const old = { ...agent, policy: wirePolicy } as unknown as AgentView;
  const oldCreated: AgentEvent = { type: 'AgentCreated', data: { agent: old } };
  const lifted: StoredPolicy = { ...storedPolicy, approvalThresholds: { currency: 'USD', amount: '500' } };
  const usage = { dailyTransactionCount: 0, dailySpend: 0, dailyResetDate: '2026-03-01', monthlySpend: 0, monthlyResetMonth: '2026-03' };

  it('is read with its limits as decimal strings', () => {
    expect(upcastAgent(old)).toEqual({ ...agent, policy: lifted });
    expect(agentDecider.evolve(agentDecider.initialState(), oldCreated)).toEqual({ kind: 'Exists', agent: { ...agent, policy: lifted } });
  });
  it('records nothing for a policy update that changes nothing', () => {
    spec(updateAgentPolicy)
      .given([oldCreated])
      .when(changePolicy({ spendingLimits: { perTransactionLimit: 1_000 } }, everything))
      .thenNothingHappened();
  });
  it('records a changed limit, and the ones it kept, as decimal strings', () => {
    spec(updateAgentPolicy)
      .given([oldCreated])
      .when(changePolicy({ spendingLimits: { perTransactionLimit: 2_000 } }, everything))
      .then([
        {
          type: 'AgentPolicyUpdated',
          data: {
            agent: {
              ...agent,
              policy: { ...lifted, spendingLimits: { currency: 'USD', perTransactionLimit: '2000' } },
              updatedAt: later.toISOString(),
            },
          },
        },
      ]);
  });
  it('is shown with the integers it was created with', () => {
    expect(renderAgent(upcastAgent(old), usage).policy).toEqual(wirePolicy);
  });
});

describe('device codes', () => {
  const freshCode = { code: 'AGENT-DDDD-EEEE-FFFF', expiresAt: '2026-03-02T11:00:00.000Z', redeemed: false };
  const fresh = { ...freshCode, issuerPermissions: [...everything] };
  const reissued: AgentEvent = {
    type: 'AgentDeviceCodeIssued',
    data: { agent: { ...agent, deviceCode: fresh, updatedAt: later.toISOString() }, supersededCode: code.code },
  };
  const issue = (grantorPermissions: Grantor): IssueDeviceCode => ({
    type: 'IssueDeviceCode',
    data: { agentId, platformId, deviceCode: freshCode, grantorPermissions: [...grantorPermissions] },
    metadata: { now: later },
  });
  const redeem = (value: string, at = later): RedeemDeviceCode => ({
    type: 'RedeemDeviceCode',
    data: { agentId, code: value, tokenHash: 'h1' },
    metadata: { now: at },
  });

  it('a new code replaces the current one', () => {
    spec(issueDeviceCode).given([created]).when(issue(everything)).then([reissued]);
  });
  it('a MANAGE-only token gets no code for a money agent (403): redeeming it would act with money permissions', () => {
    spec(issueDeviceCode).given([created]).when(issue(manageOnly)).thenThrows(forbiddenWithout('TRANSACT'));
  });
  it('redeeming cannot escalate: a code from a MANAGE-only token does not redeem once the policy gained money permissions', () => {
    const readerAgent = { ...agent, policy: storedReader, deviceCode: { ...newCode, issuerPermissions: [...manageOnly] } };
    const escalated: AgentEvent = { type: 'AgentPolicyUpdated', data: { agent: { ...readerAgent, policy: storedPolicy } } };
    const history: AgentEvent[] = [{ type: 'AgentCreated', data: { agent: readerAgent } }, escalated];
    spec(redeemDeviceCode).given(history).when(redeem(code.code)).thenThrows(forbiddenWithout('new code'));
  });
  it('a code from before issuers were recorded counts as issued with MANAGE', () => {
    const legacy: AgentEvent = { type: 'AgentCreated', data: { agent: { ...agent, deviceCode: newCode } } };
    spec(redeemDeviceCode).given([legacy]).when(redeem(code.code)).thenThrows(forbiddenWithout('TRANSACT'));
  });
  it('a connected agent gets no new code (409)', () => {
    spec(issueDeviceCode)
      .given([created, connected])
      .when(issue(everything))
      .thenThrows((error) => error.status === 409);
  });
  it('redeeming the current code connects the agent with the token hash', () => {
    spec(redeemDeviceCode).given([created]).when(redeem(code.code)).then([connected]);
  });
  it('a second redeem is 400', () => {
    spec(redeemDeviceCode)
      .given([created, connected])
      .when(redeem(code.code))
      .thenThrows((error) => error.status === 400 && /already redeemed/.test(error.message));
  });
  it('an older code after a regeneration is 400; the new one works', () => {
    spec(redeemDeviceCode)
      .given([created, reissued])
      .when(redeem(code.code))
      .thenThrows((error) => error.status === 400 && /replaced/.test(error.message));
    spec(redeemDeviceCode)
      .given([created, reissued])
      .when(redeem(fresh.code))
      .then([
        {
          type: 'AgentConnected',
          data: {
            agent: {
              ...agent,
              deviceCode: { ...fresh, redeemed: true },
              isConnected: true,
              tokenHash: 'h1',
              updatedAt: later.toISOString(),
            },
          },
        },
      ]);
  });
  it('an expired code is 400 at its expiry instant, and works a millisecond before', () => {
    spec(redeemDeviceCode)
      .given([created])
      .when(redeem(code.code, new Date(code.expiresAt)))
      .thenThrows((error) => error.status === 400 && /expired/.test(error.message));
    spec(redeemDeviceCode)
      .given([created])
      .when(redeem(code.code, new Date(Date.parse(code.expiresAt) - 1)))
      .then([
        {
          type: 'AgentConnected',
          data: {
            agent: {
              ...agent,
              isConnected: true,
              deviceCode: { ...code, redeemed: true },
              tokenHash: 'h1',
              updatedAt: new Date(Date.parse(code.expiresAt) - 1).toISOString(),
            },
          },
        },
      ]);
  });
  it("a deleted agent's code is 400", () => {
    spec(redeemDeviceCode)
      .given([created, { type: 'AgentDeleted', data: { agent: { ...agent, deleted: true } } }])
      .when(redeem(code.code))
      .thenThrows((error) => error.status === 400);
  });
});

describe('deleteAgent', () => {
  it('deletes and disconnects', () => {
    spec(deleteAgent)
      .given([created, connected])
      .when({ type: 'DeleteAgent', data: { agentId, platformId }, metadata: { now: later } })
      .then([
        {
          type: 'AgentDeleted',
          data: { agent: { ...(connected.data.agent as AgentView), deleted: true, isConnected: false, updatedAt: later.toISOString() } },
        },
      ]);
  });
});
