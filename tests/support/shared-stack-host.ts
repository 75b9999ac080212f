import { createServer, type Server } from 'node:http';
import { busUsers, type BusUserName } from '@corridor/messaging';
import { SHARED_STACK_READY, type SharedStackDescriptor } from './shared-stack-descriptor';
import { type AppName, appList, freePort, serviceNames, type Stack, startStack, waitFor } from './stack';

// The shared end-to-end stack (decision 0050) as a process of its own, started by the e2e global
// setup: it starts every app once, prints the descriptor the suites connect with, and before each
// suite (POST /ensure) restarts any app that stopped or stopped answering, so a suite that failed
// cannot leave the next one a broken stack. It stops every app on SIGTERM or SIGINT, and when its
// standard input closes (the jest that started it is gone), so no app outlives the run.

/**
 * An app that answers 200 within 5 s (a hung one would keep the request open for minutes). A refused
 * or timed-out request is the answer "no", not an error to report here: the caller restarts the app
 * and says why in its log line.
 */
const answers = async (url: string): Promise<boolean> =>
  (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status === 200;

const restart = async (stack: Stack, app: AppName, why: string): Promise<string> => {
  process.stderr.write(`shared stack: ${app} ${why}; restarting it. Its last output:\n${stack.logs[app].slice(-20).join('')}\n`);
  await stack.stop(app);
  await stack.start(app);
  return `${app} (${why})`;
};

/** Every app running and answering its health port, and the gateway answering 200 for all of them. */
const ensureHealthy = async (stack: Stack): Promise<string[]> => {
  const restarted: string[] = [];
  for (const { name } of appList) if (stack.pid(name) === undefined) restarted.push(await restart(stack, name, 'was not running'));
  for (const app of serviceNames)
    if (!(await answers(stack.healthUrl(app)))) restarted.push(await restart(stack, app, 'did not answer its health check'));
  let lastHealth = 'no answer';
  await waitFor(
    'the shared stack gateway health',
    async () => {
      const reply = await fetch(stack.healthUrl('gateway'));
      lastHealth = `${reply.status} ${await reply.text()}`;
      return reply.status === 200;
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message} Last /health: ${lastHealth.slice(0, 2_000)}`);
  });
  return restarted;
};

const describeStack = (stack: Stack, controlUrl: string): SharedStackDescriptor => ({
  baseUrl: stack.baseUrl,
  gatewayUrl: stack.gatewayUrl,
  gatewayMetricsUrl: stack.gatewayMetricsUrl,
  database: { name: stack.database.name, url: stack.database.url },
  subjectPrefix: stack.subjectPrefix,
  env: stack.env,
  bus: {
    url: stack.bus.url,
    harness: stack.bus.harness,
    users: Object.fromEntries(
      (Object.keys(busUsers) as BusUserName[]).map((user) => [user, { env: stack.bus.envFor(user), options: stack.bus.as(user) }]),
    ),
  },
  healthUrls: Object.fromEntries(appList.map(({ name }) => [name, stack.healthUrl(name)])),
  controlUrl,
});

const control = (starting: Promise<Stack>): Server =>
  createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/ensure') {
      response.writeHead(404).end(`shared stack host: no ${request.method} ${request.url}; POST /ensure is the one request`);
      return;
    }
    starting.then(ensureHealthy).then(
      (restarted) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ restarted })),
      (error: Error) => response.writeHead(503).end(`shared stack host: the stack is not healthy: ${error.message}`),
    );
  });

const main = async (): Promise<void> => {
  // The handlers come first: a jest that is gone while the apps start must still stop them.
  const starting = startStack();
  const server = control(starting);
  let stopping: Promise<void> | undefined;
  const stop = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      process.stderr.write(`shared stack: stopping (${why})\n`);
      server.close();
      // A start that failed is not reported here: startStack stopped what it had started, and its
      // error is written by main's catch ("shared stack: failed to start"); only a stack that started has anything to close.
      await (await starting.catch(() => undefined))?.close();
      process.exit(0);
    })());
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.stdin.on('close', () => void stop('the jest that started it is gone'));
  process.stdin.resume();
  const stack = await starting;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  process.stdout.write(`${SHARED_STACK_READY}${JSON.stringify(describeStack(stack, `http://127.0.0.1:${port}`))}\n`);
};

main().catch((error: Error) => {
  process.stderr.write(`shared stack: failed to start: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
