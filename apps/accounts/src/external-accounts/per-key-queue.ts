/** More waiters than this on one key means callers outpace the store; refuse rather than queue without end. */
const MAX_WAITERS_PER_KEY = 1_000;

/**
 * Runs work one at a time per key inside this process. Every "make me the default" request of one
 * customer appends to the same stream; run side by side they collide on its version and exhaust the
 * command handler's few retries (12 concurrent creates were enough). Queued, each decides on the
 * state the previous one left. Replicas still serialise through the expected-version check.
 */
export class PerKeyQueue {
  private readonly tails = new Map<string, { tail: Promise<void>; waiters: number }>();

  constructor(private readonly onOverflow: (key: string) => Error) {}

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const entry = this.tails.get(key) ?? { tail: Promise.resolve(), waiters: 0 };
    if (entry.waiters >= MAX_WAITERS_PER_KEY) throw this.onOverflow(key);
    const previous = entry.tail;
    let release: () => void = () => undefined;
    entry.tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    entry.waiters += 1;
    this.tails.set(key, entry);
    try {
      await previous;
      return await work();
    } finally {
      release();
      entry.waiters -= 1;
      if (entry.waiters === 0) this.tails.delete(key);
    }
  }
}
