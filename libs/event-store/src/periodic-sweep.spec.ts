// One sweep at a time: a sweep asked for while one runs joins it, and stop waits for it.
import { PeriodicSweep } from './periodic-sweep';

const deferred = () => {
  let resolve!: (value: number) => void;
  const promise = new Promise<number>((done) => (resolve = done));
  return { promise, resolve };
};

describe('PeriodicSweep', () => {
  it('joins a sweep asked for while one runs, and runs a new one after', async () => {
    const pending = deferred();
    const run = jest.fn().mockReturnValueOnce(pending.promise).mockResolvedValueOnce(7);
    const sweep = new PeriodicSweep(run, (error) => {
      throw error;
    });
    const first = sweep.sweep();
    const joined = sweep.sweep();
    pending.resolve(3);
    expect([await first, await joined]).toEqual([3, 3]);
    expect(await sweep.sweep()).toBe(7);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('reports a failed periodic sweep and keeps sweeping', async () => {
    jest.useFakeTimers();
    try {
      const failures: unknown[] = [];
      const run = jest.fn().mockRejectedValueOnce(new Error('database away')).mockResolvedValue(0);
      const sweep = new PeriodicSweep(run, (error) => failures.push(error));
      sweep.start(1_000);
      await jest.advanceTimersByTimeAsync(2_000);
      expect(run).toHaveBeenCalledTimes(2);
      expect(failures).toEqual([new Error('database away')]);
      await sweep.stop();
      await jest.advanceTimersByTimeAsync(5_000);
      expect(run).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('waits on stop for the sweep in flight', async () => {
    const pending = deferred();
    const sweep = new PeriodicSweep(
      () => pending.promise,
      (error) => {
        throw error;
      },
    );
    void sweep.sweep();
    let stopped = false;
    const stopping = sweep.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    pending.resolve(1);
    await stopping;
    expect(stopped).toBe(true);
  });
});
