import type { RequestContext } from '@corridor/contracts';
import type { ServiceClient } from '@corridor/messaging';
import { APPROVAL_HOOK_REMEMBERED_MS, ApprovalHooks, rememberedHookStands } from './approval-hooks';

const context = (platformId: string): RequestContext => ({
  platformId,
  actor: { kind: 'system', name: 'spec' },
  requestId: 'r',
  correlationId: 'c',
});

/** A platform service whose endpoints the test sets, counting what it is asked. */
const platformService = () => {
  const endpoints = new Map<string, string | undefined>();
  const asked: string[] = [];
  const client = {
    request: async (_subject: string, _data: unknown, options: { context: RequestContext }) => {
      asked.push(options.context.platformId);
      return { webhookEndpoint: endpoints.get(options.context.platformId) };
    },
  } as unknown as ServiceClient;
  return { endpoints, asked, hooks: new ApprovalHooks(client) };
};

describe('rememberedHookStands', () => {
  it('given a yes seen just now, then it stands', () => expect(rememberedHookStands(1_000, 1_000)).toBe(true));
  it('given a yes seen as long ago as it is remembered, then the platform is asked again', () =>
    expect(rememberedHookStands(1_000, 1_000 + APPROVAL_HOOK_REMEMBERED_MS)).toBe(false));
  it('given nothing remembered (never seen, or a no), then the platform is asked', () =>
    expect(rememberedHookStands(undefined, 1_000)).toBe(false));
});

describe('ApprovalHooks', () => {
  it('given a platform with an endpoint, when asked twice within the window, then the platform service is asked once', async () => {
    const { endpoints, asked, hooks } = platformService();
    endpoints.set('Platform:a', 'https://a.example/hook');
    expect(await hooks.has(context('Platform:a'), 10_000)).toBe(true);
    expect(await hooks.has(context('Platform:a'), 10_000 + APPROVAL_HOOK_REMEMBERED_MS - 1)).toBe(true);
    expect(asked).toEqual(['Platform:a']);
  });

  it('given a platform without an endpoint, when it configures one, then the next payment sees it at once (no no is kept)', async () => {
    const { endpoints, asked, hooks } = platformService();
    expect(await hooks.has(context('Platform:b'), 10_000)).toBe(false);
    endpoints.set('Platform:b', 'https://b.example/hook');
    expect(await hooks.has(context('Platform:b'), 10_001)).toBe(true);
    expect(asked).toEqual(['Platform:b', 'Platform:b']);
  });

  it('given an endpoint removed, when the window has passed, then the platform is asked and the answer is no', async () => {
    const { endpoints, hooks } = platformService();
    endpoints.set('Platform:c', 'https://c.example/hook');
    await hooks.has(context('Platform:c'), 10_000);
    endpoints.delete('Platform:c');
    expect(await hooks.has(context('Platform:c'), 10_000 + APPROVAL_HOOK_REMEMBERED_MS)).toBe(false);
  });

  it("given two platforms, then one's endpoint says nothing about the other's", async () => {
    const { endpoints, hooks } = platformService();
    endpoints.set('Platform:d', 'https://d.example/hook');
    await hooks.has(context('Platform:d'), 10_000);
    expect(await hooks.has(context('Platform:e'), 10_000)).toBe(false);
  });
});
