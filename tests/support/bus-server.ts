import { type ChildProcess, spawn } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'nats';
import { eventsStreamName } from '@corridor/contracts';
import { busPassword, busUsers, type BusUserName, inboxPrefixOf, natsServerConfig } from '@corridor/messaging';

// A nats-server of one stack, with the configuration a deployment runs (one user per service,
// their subject permissions), on a free port with a throwaway JetStream store: the machine's shared
// server on 4222 has no authentication, so a stack on it would not show what production refuses.

export const NATS_SERVER_BIN = process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server';
const READY_TIMEOUT_MS = 15_000;

export type BusServer = {
  url: string;
  /** The environment an app needs to connect as its own bus user. */
  envFor(user: BusUserName): Record<string, string>;
  /** Connection options of a bus user (a test acting as one service). */
  as(user: BusUserName): ConnectionOptions;
  /** The harness: every permission, for tests that watch the bus; no app ever connects with it. */
  harness: ConnectionOptions;
  output: string[];
  close(): Promise<void>;
};

export const startBusServer = async (options: { subjectPrefix: string; port: number }): Promise<BusServer> => {
  const directory = await mkdtemp(join(tmpdir(), 'corridor-nats-'));
  const passwords = Object.fromEntries((Object.keys(busUsers) as BusUserName[]).map((user) => [user, busPassword()])) as Record<
    BusUserName,
    string
  >;
  const harness = { user: 'e2e-harness', password: busPassword() };
  const config = natsServerConfig({
    subjectPrefix: options.subjectPrefix,
    streamName: eventsStreamName(options.subjectPrefix),
    passwords,
    port: options.port,
    storeDir: join(directory, 'jetstream'),
    harness,
  });
  const configFile = join(directory, 'nats-server.conf');
  await writeFile(configFile, config);
  const url = `nats://127.0.0.1:${options.port}`;
  const output: string[] = [];
  const child: ChildProcess = spawn(NATS_SERVER_BIN, ['-c', configFile, '-a', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const harnessOptions: ConnectionOptions = { servers: url, user: harness.user, pass: harness.password };
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(directory, { recursive: true, force: true });
    // CORRIDOR_BUS_LOG=<file> keeps the server's log (its permission violations, say) after the stack is gone.
    const keep = process.env['CORRIDOR_BUS_LOG'];
    if (keep) await appendFile(keep, output.join(''));
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`nats-server exited with ${child.exitCode}:\n${output.join('')}`);
    }
    // Refused until the server listens: polled, and a server that exits is reported above with its output.
    const connection = await connect({ ...harnessOptions, reconnect: false, timeout: 1000 }).catch(() => undefined);
    if (connection) {
      await connection.close();
      break;
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`nats-server did not accept connections within ${READY_TIMEOUT_MS} ms:\n${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    envFor: (user) => ({ NATS_URL: url, NATS_USER: user, NATS_PASSWORD: passwords[user] }),
    as: (user) => ({ servers: url, user, pass: passwords[user], inboxPrefix: inboxPrefixOf(user) }),
    harness: harnessOptions,
    output,
    close,
  };
};
