// SIGTERM ends a service within SHUTDOWN_TIMEOUT_MS even when a shutdown hook never resolves: the
// process logs the phase and the hook that hung and exits with code 1.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { requireNats, testUrls, uniqueSubjectPrefix } from '@corridor/testing';

const root = join(__dirname, '../../..');
const SHUTDOWN_TIMEOUT_MS = 1_500;

type Run = { code: number | null; signal: NodeJS.Signals | null; elapsedMs: number; output: string };

/** Starts the fixture, waits until it serves, sends SIGTERM and measures how long it takes to exit. */
const runAndTerminate = (env: Record<string, string>): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', join(__dirname, 'shutdown.fixture.ts')], {
      cwd: root,
      env: {
        ...process.env,
        NATS_URL: testUrls.nats(),
        CORRIDOR_SUBJECT_PREFIX: uniqueSubjectPrefix(),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let signalledAt = 0;
    const startTimeout = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The fixture did not start within 20 s:\n${output}`));
    }, 20_000);
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
      if (!signalledAt && output.includes('FIXTURE_LISTENING')) {
        clearTimeout(startTimeout);
        signalledAt = Date.now();
        child.kill('SIGTERM');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('exit', (code, signal) => {
      clearTimeout(startTimeout);
      resolve({ code, signal, elapsedMs: signalledAt ? Date.now() - signalledAt : -1, output });
    });
  });

beforeAll(() => requireNats());

it('exits with code 1 within the bound when a shutdown hook hangs, naming the hook', async () => {
  const run = await runAndTerminate({ HANG: '1' });
  expect(run.code).toBe(1);
  expect(run.elapsedMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS - 100);
  // The bound plus a margin for a loaded 2-core machine; without the bound it would never exit.
  expect(run.elapsedMs).toBeLessThan(SHUTDOWN_TIMEOUT_MS + 3_000);
  expect(run.output).toContain(`Shutdown did not finish within ${SHUTDOWN_TIMEOUT_MS} ms`);
  expect(run.output).toContain('StuckWorker.onApplicationShutdown');
}, 30_000);

it('exits with code 0 promptly when every hook finishes', async () => {
  const run = await runAndTerminate({ HANG: '0' });
  // Code 0 and no bound message: the hooks finished before the bound (past it the process exits 1).
  // Not a wall-clock assertion: on a loaded machine the exit itself can take longer than the bound.
  expect(run.code).toBe(0);
  expect(run.output).toContain('Stopped.');
  expect(run.output).not.toContain('Shutdown did not finish');
}, 30_000);
