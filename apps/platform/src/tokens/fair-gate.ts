// A bound on concurrent work with a fair, bounded queue (decision 0022): at most `concurrency` tasks
// run; beyond that tasks wait, taken round-robin across keys (client ids), so a flood of one key
// waits behind its own tasks, not in front of everyone else's. A key may have `queuePerKeyMax`
// tasks waiting, all keys together `queueMax`; past either the task is refused at once, so the
// caller answers fast instead of timing out. Written here because no maintained CommonJS library
// offers per-key fairness with bounded queues (p-limit 7 is ESM-only, p-limit 3 has no queue bound).

export type FairGateOptions = { concurrency: number; queueMax: number; queuePerKeyMax: number };
export type GateLoad = { running: number; queued: number; queuedForKey: number };
export type Admission = 'run' | 'queue' | 'refuse-key' | 'refuse-all';

/** Run when a slot is free and nobody waits; queue while there is room; refuse the key first, then everyone. */
export const admit = (load: GateLoad, options: FairGateOptions): Admission => {
  if (load.running < options.concurrency && load.queued === 0) return 'run';
  if (load.queuedForKey >= options.queuePerKeyMax) return 'refuse-key';
  if (load.queued >= options.queueMax) return 'refuse-all';
  return 'queue';
};

export class GateFull extends Error {
  constructor(readonly scope: 'key' | 'all') {
    super(scope === 'key' ? 'Too many tasks are waiting for this key.' : 'Too many tasks are waiting.');
  }
}

export class FairGate {
  private running = 0;
  private queued = 0;
  /** Waiting starts per key; Map order is the round-robin order (a served key moves to the back). */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly options: FairGateOptions) {}

  load(key?: string): GateLoad {
    return { running: this.running, queued: this.queued, queuedForKey: key === undefined ? 0 : (this.waiting.get(key)?.length ?? 0) };
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const admission = admit(this.load(key), this.options);
    if (admission === 'refuse-key') throw new GateFull('key');
    if (admission === 'refuse-all') throw new GateFull('all');
    if (admission === 'queue') await new Promise<void>((start) => this.enqueue(key, start));
    else this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.startNext();
    }
  }

  private enqueue(key: string, start: () => void): void {
    const starts = this.waiting.get(key) ?? [];
    starts.push(start);
    this.waiting.set(key, starts);
    this.queued += 1;
  }

  private startNext(): void {
    const next = this.waiting.entries().next();
    if (next.done) return;
    const [key, starts] = next.value;
    const start = starts.shift();
    this.waiting.delete(key);
    if (!start) return this.startNext();
    if (starts.length > 0) this.waiting.set(key, starts);
    this.queued -= 1;
    this.running += 1;
    start();
  }
}
