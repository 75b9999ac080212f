import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { SHARED_STACK_ENV, SHARED_STACK_READY } from './shared-stack-descriptor';

// Global setup of the end-to-end run (decision 0050): the shared stack's host process, started once
// when a selected suite uses it (tests/support/e2e-sequencer.js counts them). Its descriptor reaches
// every suite through SHARED_STACK_ENV; the global teardown stops the host, which stops every app.

const root = join(__dirname, '../..');
const READY_TIMEOUT_MS = 240_000;

export type SharedStackGlobals = typeof globalThis & { corridorSharedStackHost?: ChildProcess };

const descriptorOf = (host: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the shared stack was not ready within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    if (!host.stdout) return reject(new Error("the shared stack's host has no standard output to read its descriptor from"));
    const lines = createInterface({ input: host.stdout });
    lines.on('line', (line) => {
      if (line.startsWith(SHARED_STACK_READY)) {
        clearTimeout(timer);
        resolve(line.slice(SHARED_STACK_READY.length));
      } else process.stdout.write(`shared stack: ${line}\n`);
    });
    host.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the shared stack's host exited with ${code ?? signal} before it was ready (its output is above)`));
    });
  });

export default async function startSharedStack(): Promise<void> {
  if (process.env['CORRIDOR_E2E_SHARED_SUITES'] === '0') return;
  // stdin is a pipe the host watches: when this jest is gone, however it ended, the host stops the apps.
  const host = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'shared-stack-host.ts')], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  (globalThis as SharedStackGlobals).corridorSharedStackHost = host;
  const started = Date.now();
  process.env[SHARED_STACK_ENV] = await descriptorOf(host).catch((error: Error) => {
    host.kill('SIGTERM');
    throw new Error(`End-to-end global setup: ${error.message}`);
  });
  process.stdout.write(`\nshared stack: every app started in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
