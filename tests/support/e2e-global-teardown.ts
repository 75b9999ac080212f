import printConformanceReport from './conformance-report';
import type { SharedStackGlobals } from './e2e-global-setup';

// Global teardown of the end-to-end run: the shared stack's host stopped (it stops every app and
// drops the database; SIGKILL if it has not exited after a minute), then the conformance report.

const STOP_TIMEOUT_MS = 60_000;

export default async function stopSharedStack(): Promise<void> {
  const host = (globalThis as SharedStackGlobals).corridorSharedStackHost;
  if (host && host.exitCode === null && host.signalCode === null) {
    const exited = new Promise((resolve) => host.once('exit', resolve));
    host.kill('SIGTERM');
    const timer = setTimeout(() => {
      process.stderr.write(`shared stack: the host did not stop within ${STOP_TIMEOUT_MS} ms of SIGTERM; killing it\n`);
      host.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  await printConformanceReport();
}
