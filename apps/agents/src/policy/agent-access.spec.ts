// The permission matrix: every permission × every agent route. A route passes exactly when it
// needs no permission or the policy grants one it accepts; a paused agent only reads; a deleted
// agent is no credential at all.
import { type AgentPermission, type AgentRoute, agentPermissions, agentReadRoutes, agentRoutePermissions } from '@corridor/contracts';
import type { AgentView } from '../agents/agent';
import { authorizeAgentRoute } from './agent-access';

const agent = (permissions: AgentPermission[], overrides: Partial<AgentView> = {}): AgentView => ({
  id: 'Agent:a',
  platformId: 'Platform:p',
  customerId: 'Customer:c',
  environment: 'SANDBOX',
  name: 'bot',
  isPaused: false,
  isConnected: true,
  deleted: false,
  policy: { permissions, defaultExecutionMode: 'AUTO', spendingLimits: { currency: 'USD', perTransactionLimit: '1' } },
  deviceCode: { code: 'AGENT-X', expiresAt: '2030-01-01T00:00:00Z', redeemed: true },
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...overrides,
});

const routes = Object.keys(agentRoutePermissions) as AgentRoute[];
const matrix = agentPermissions.flatMap((permission) => routes.map((route) => [permission, route] as const));

describe('authorizeAgentRoute', () => {
  it.each(matrix)('an agent granted only %s calling %s', (permission, route) => {
    const accepted: readonly AgentPermission[] | null = agentRoutePermissions[route];
    const run = () => authorizeAgentRoute(agent([permission]), route);
    if (accepted === null || accepted.includes(permission)) expect(run().id).toBe('Agent:a');
    else
      expect(run).toThrow(
        expect.objectContaining({ status: 403, code: 'FORBIDDEN', details: { requiredPermission: accepted.join(' or ') } }),
      );
  });

  it(
    'a quote is read by an agent that may create quotes or only execute them (issue 15: ' + 'quotes need CREATE_QUOTES / EXECUTE_QUOTES)',
    () => {
      expect(authorizeAgentRoute(agent(['CREATE_QUOTES']), 'getQuote').id).toBe('Agent:a');
      expect(authorizeAgentRoute(agent(['EXECUTE_QUOTES']), 'getQuote').id).toBe('Agent:a');
      for (const other of ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'MANAGE_EXTERNAL_ACCOUNTS'] as const) {
        expect(() => authorizeAgentRoute(agent([other]), 'getQuote')).toThrow(expect.objectContaining({ status: 403, code: 'FORBIDDEN' }));
      }
    },
  );

  it.each(routes)('an agent with every permission may call %s; with none only the routes that need nothing', (route) => {
    expect(authorizeAgentRoute(agent([...agentPermissions]), route).id).toBe('Agent:a');
    if (agentRoutePermissions[route] === null) expect(authorizeAgentRoute(agent([]), route).id).toBe('Agent:a');
    else expect(() => authorizeAgentRoute(agent([]), route)).toThrow(expect.objectContaining({ status: 403 }));
  });

  it.each(routes)('a paused agent reads but does not act: %s', (route) => {
    const run = () => authorizeAgentRoute(agent([...agentPermissions], { isPaused: true }), route);
    if (agentReadRoutes.includes(route)) expect(run().id).toBe('Agent:a');
    else expect(run).toThrow(expect.objectContaining({ status: 403, details: { agentId: 'Agent:a', isPaused: true } }));
  });

  it.each(routes)('a deleted agent is refused 401 on %s', (route) => {
    expect(() => authorizeAgentRoute(agent([...agentPermissions], { deleted: true }), route)).toThrow(
      expect.objectContaining({ status: 401, code: 'UNAUTHORIZED' }),
    );
    expect(() => authorizeAgentRoute(undefined, route)).toThrow(expect.objectContaining({ status: 401 }));
  });
});
