import type { BusUserName } from '@corridor/messaging';
import { SHARED_STACK_ENV, type SharedStackDescriptor } from './shared-stack-descriptor';
import { type AppName, platformCreator, type StackView } from './stack';

// The one stack the end-to-end suites that need only a platform of their own share (decision 0050),
// started once by the global setup (tests/support/e2e-global-setup.ts). Each suite gets a handle with
// its own bus connection for new platforms; close() ends that connection, never the stack. Before the
// suite, the host restarts any app the previous suite left stopped or unanswering.

const descriptor = (): SharedStackDescriptor => {
  const raw = process.env[SHARED_STACK_ENV];
  if (!raw)
    throw new Error(
      `${SHARED_STACK_ENV} is not set: run the suite through jest.e2e.config.js, whose global setup starts the shared stack.`,
    );
  return JSON.parse(raw) as SharedStackDescriptor;
};

/** The shared stack, checked healthy (restarted where it was not) for the suite that asks. */
export const sharedStack = async (): Promise<StackView> => {
  const shared = descriptor();
  const reply = await fetch(`${shared.controlUrl}/ensure`, { method: 'POST' });
  const body = await reply.text();
  if (!reply.ok) throw new Error(`The shared stack could not be made healthy for this suite: ${reply.status} ${body}`);
  const { restarted } = JSON.parse(body) as { restarted: string[] };
  if (restarted.length > 0)
    console.warn(`shared stack: restarted before this suite, as the previous one left them: ${restarted.join(', ')}`);
  const user = (name: BusUserName) => {
    const entry = shared.bus.users[name];
    if (!entry) throw new Error(`The shared stack's bus has no user ${name}.`);
    return entry;
  };
  const platforms = platformCreator({ natsUrl: shared.bus.url, natsAuth: user('operator').options, subjectPrefix: shared.subjectPrefix });
  return {
    baseUrl: shared.baseUrl,
    gatewayUrl: shared.gatewayUrl,
    gatewayMetricsUrl: shared.gatewayMetricsUrl,
    database: shared.database,
    subjectPrefix: shared.subjectPrefix,
    env: shared.env,
    bus: { url: shared.bus.url, harness: shared.bus.harness, envFor: (name) => user(name).env, as: (name) => user(name).options },
    healthUrl: (app: AppName, replica = 0) => {
      const url = shared.healthUrls[app];
      if (replica !== 0 || !url) throw new Error(`The shared stack runs one ${app}: it has no replica ${replica}.`);
      return url;
    },
    createPlatform: platforms.createPlatform,
    close: platforms.close,
  };
};
