// Given the gate's load, when a task arrives, then it runs, waits or is refused; and waiting tasks
// start round-robin across keys, so one flooded key never holds another key's task behind it.
import { admit, FairGate, GateFull } from './fair-gate';

const options = { concurrency: 2, queueMax: 4, queuePerKeyMax: 2 };

describe('admit', () => {
  it('runs while a slot is free and nobody waits', () => expect(admit({ running: 1, queued: 0, queuedForKey: 0 }, options)).toBe('run'));
  it('queues behind waiting tasks even when a slot just freed (no overtaking)', () =>
    expect(admit({ running: 1, queued: 1, queuedForKey: 0 }, options)).toBe('queue'));
  it('queues when every slot is busy', () => expect(admit({ running: 2, queued: 0, queuedForKey: 0 }, options)).toBe('queue'));
  it('refuses the key whose own queue is full, even with room for others', () =>
    expect(admit({ running: 2, queued: 2, queuedForKey: 2 }, options)).toBe('refuse-key'));
  it('refuses everyone when the whole queue is full', () =>
    expect(admit({ running: 2, queued: 4, queuedForKey: 0 }, options)).toBe('refuse-all'));
});

describe('FairGate', () => {
  type Held = { key: string; release: () => void };
  const holdOpen = (gate: FairGate, started: Held[], key: string): Promise<string> =>
    gate.run(key, () => new Promise<string>((resolve) => started.push({ key, release: () => resolve(key) })));
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('starts waiting tasks round-robin across keys: a flood of one key does not go first', async () => {
    const gate = new FairGate({ concurrency: 1, queueMax: 10, queuePerKeyMax: 10 });
    const started: Held[] = [];
    const done = [
      holdOpen(gate, started, 'flood'),
      holdOpen(gate, started, 'flood'),
      holdOpen(gate, started, 'flood'),
      holdOpen(gate, started, 'honest'),
    ];
    await tick();
    expect(started.map((held) => held.key)).toEqual(['flood']);
    started[0]!.release();
    await tick();
    started[1]!.release();
    await tick();
    // After the running flood task, the honest one was served before the flood's remaining one.
    expect(started.map((held) => held.key)).toEqual(['flood', 'flood', 'honest']);
    started[2]!.release();
    await tick();
    started[3]!.release();
    await expect(Promise.all(done)).resolves.toEqual(['flood', 'flood', 'flood', 'honest']);
    expect(gate.load()).toEqual({ running: 0, queued: 0, queuedForKey: 0 });
  });

  it('refuses at once past the per-key and the total queue bounds, and frees the slot of a task that throws', async () => {
    const gate = new FairGate({ concurrency: 1, queueMax: 2, queuePerKeyMax: 1 });
    const started: Held[] = [];
    const running = holdOpen(gate, started, 'a');
    const waitingA = holdOpen(gate, started, 'a');
    await expect(gate.run('a', async () => 'x')).rejects.toEqual(new GateFull('key'));
    const waitingB = holdOpen(gate, started, 'b');
    await expect(gate.run('c', async () => 'x')).rejects.toEqual(new GateFull('all'));
    started[0]!.release();
    await tick();
    started[1]!.release();
    await tick();
    started[2]!.release();
    await expect(Promise.all([running, waitingA, waitingB])).resolves.toEqual(['a', 'a', 'b']);
    await expect(gate.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(gate.load()).toEqual({ running: 0, queued: 0, queuedForKey: 0 });
  });
});
