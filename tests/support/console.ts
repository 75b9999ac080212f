import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { waitUntil } from '@corridor/testing';
import { freePort, serviceNames, type StackView } from './stack';

// The operators' console (npm run console) as its own process against a stack's database and
// health ports, and Debian's chromium driven by playwright-core (which downloads no browser).

const root = join(__dirname, '../..');
export const CONSOLE_TOKEN = 'console-e2e-operator-token-0123456789';
export const OPERATOR = { username: 'alice', password: 'correct horse battery staple' };

/** No sandbox (CI runs as root), no GPU, and nothing that phones home or updates itself during a test. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type Login = { username: string; password: string };
export type Console = { url: string; output: string[]; browser(login?: Login): Promise<BrowserContext>; close(): Promise<void> };

/** Starts the console with an operator token and one operator user, and waits until it answers. */
export const startConsole = async (stack: StackView): Promise<Console> => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: stack.database.url,
    CONSOLE_PORT: String(port),
    CONSOLE_TOKEN,
    CONSOLE_USERS: `${OPERATOR.username}:${createHash('sha256').update(OPERATOR.password).digest('hex')}`,
    CONSOLE_HEALTH_URLS: serviceNames.map((service) => `${service}=${stack.healthUrl(service)}`).join(','),
  };
  const main = join(root, 'apps/console/src/main.ts');
  const child: ChildProcess = spawn(process.execPath, ['-r', '@swc-node/register', main], { cwd: root, env, stdio: 'pipe' });
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const live = async () => (await fetch(`${url}/health/live`).catch(() => undefined))?.status === 200;
  await waitUntil('the console', live, 30_000, () => output.join(''));

  const contexts: BrowserContext[] = [];
  const profiles: string[] = [];
  /**
   * Debian's chromium, headless, with a fresh profile and nothing that phones home. The login is
   * what a person types into the browser's prompt when the console asks for Basic credentials.
   */
  const browser = async (login?: Login): Promise<BrowserContext> => {
    const profile = await mkdtemp(join(tmpdir(), 'corridor-console-chromium-'));
    profiles.push(profile);
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
      ...(login ? { httpCredentials: login } : {}),
    });
    contexts.push(context);
    return context;
  };

  const close = async (): Promise<void> => {
    for (const context of contexts) await context.close();
    for (const profile of profiles) await rm(profile, { recursive: true, force: true });
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  return { url, output, browser, close };
};
