import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { type Clock, offsetClock, systemClock } from '@corridor/contracts';

// A clock every process of one test stack shares: the system's time plus an offset in milliseconds
// that the test writes to a file (CORRIDOR_TEST_CLOCK_FILE). Expiries, windows and sweeps then
// follow the test's `advanceTestClock` instead of real sleeps. Only domain time moves: stored
// events keep the store's own timestamps. Refused in production, where time is the system's.

export const TEST_CLOCK_FILE = 'CORRIDOR_TEST_CLOCK_FILE';

/** The offset the file holds: a whole number of milliseconds, 0 when the file is not there yet. */
export const parseClockOffset = (text: string, path: string): number => {
  const offset = Number(text.trim() || '0');
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new Error(`${path} must hold a whole number of milliseconds of 0 or more (the test clock's offset), not "${text.trim()}".`);
  }
  return offset;
};

/**
 * The offset re-read whenever the file changes (one stat of a local file per reading, test stacks
 * only). A clock never runs backwards: an offset smaller than the last one read is refused.
 */
export const fileOffsetClock = (path: string): Clock => {
  let seen = { version: '', offset: 0 };
  const offset = (): number => {
    const stat = statSync(path, { throwIfNoEntry: false });
    // advanceTestClock replaces the file, so a new inode marks each move even within one mtime tick.
    const version = stat ? `${stat.ino}:${stat.mtimeMs}:${stat.size}` : '';
    if (!stat || version === seen.version) return seen.offset;
    const next = parseClockOffset(readFileSync(path, 'utf8'), path);
    if (next < seen.offset) throw new Error(`${path} moved the test clock back from ${seen.offset} to ${next} ms; it only moves forward.`);
    seen = { version, offset: next };
    return next;
  };
  return offsetClock(offset);
};

/** The service's clock from its environment: the system's, or a test stack's shared clock outside production. */
export const parseClock = (env: NodeJS.ProcessEnv): Clock => {
  const path = env[TEST_CLOCK_FILE];
  if (path === undefined || path === '') return systemClock;
  if (env['NODE_ENV'] === 'production') {
    throw new Error(`${TEST_CLOCK_FILE} moves the service's clock for tests; unset it in production (NODE_ENV=production).`);
  }
  return fileOffsetClock(path);
};

/** Moves a test stack's clock ahead by `ms` (the file is replaced whole, so no process reads half a number). */
export const advanceTestClock = (path: string, ms: number): number => {
  const current = statSync(path, { throwIfNoEntry: false }) ? parseClockOffset(readFileSync(path, 'utf8'), path) : 0;
  const next = current + Math.round(ms);
  writeFileSync(`${path}.next`, String(next));
  renameSync(`${path}.next`, path);
  return next;
};
