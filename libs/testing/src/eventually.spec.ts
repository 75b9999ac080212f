// Pins down the one poll loop tests, benchmarks and the soak share: it reads until the state comes,
// pauses between reads, and at the bound either hands back the last value or fails naming the wait.
import { eventually, until, waitUntil } from './eventually';

/** A read that yields 1, 2, 3… and counts its calls. */
const counter = () => {
  let calls = 0;
  return { read: () => (calls += 1), calls: () => calls };
};

describe('eventually', () => {
  it('returns the first value that satisfies done, without reading again', async () => {
    const source = counter();
    await expect(eventually(source.read, (value) => value === 3, { intervalMs: 1 })).resolves.toBe(3);
    expect(source.calls()).toBe(3);
  });

  it('awaits an async read', async () => {
    await expect(
      eventually(
        async () => 'ready',
        (value) => value === 'ready',
      ),
    ).resolves.toBe('ready');
  });

  it('returns the last value read once the bound passes, so the caller asserts on it', async () => {
    const source = counter();
    const last = await eventually(source.read, () => false, { timeoutMs: 30, intervalMs: 5 });
    expect(last).toBe(source.calls());
    expect(last).toBeGreaterThan(1);
  });

  it('pauses between reads', async () => {
    const source = counter();
    await eventually(source.read, () => false, { timeoutMs: 60, intervalMs: 25 });
    // Without the pause it would read thousands of times in 60 ms.
    expect(source.calls()).toBeLessThanOrEqual(5);
  });
});

describe('until', () => {
  it('returns the value that satisfied done', async () => {
    const source = counter();
    await expect(until('the third read', source.read, (value) => value >= 3, { intervalMs: 1 })).resolves.toBe(3);
  });

  it('fails naming the wait, the bound, the last value read and the context', async () => {
    await expect(
      until(
        'the webhook',
        () => ({ status: 'PENDING' }),
        () => false,
        { timeoutMs: 20, intervalMs: 5 },
        () => ' Seen: none.',
      ),
    ).rejects.toThrow('Timed out after 20 ms waiting for the webhook (last read: {"status":"PENDING"}). Seen: none.');
  });

  it('shortens a long last value', async () => {
    const error = await until(
      'a page',
      () => 'x'.repeat(2_000),
      () => false,
      10,
    ).catch((caught: Error) => caught);
    expect((error as Error).message.length).toBeLessThan(600);
  });

  it('lets a failing read fail the wait at once rather than hide it', async () => {
    const read = () => Promise.reject(new Error('connection refused'));
    await expect(until('a read', read, () => true)).rejects.toThrow('connection refused');
  });
});

describe('waitUntil', () => {
  it('resolves once the check holds', async () => {
    const source = counter();
    await waitUntil('the second read', () => source.read() >= 2, { intervalMs: 1 });
    expect(source.calls()).toBe(2);
  });

  it('fails naming what never happened, with a number as the timeout', async () => {
    await expect(waitUntil('the accounts to open', async () => false, 15)).rejects.toThrow(
      'Timed out after 15 ms waiting for the accounts to open',
    );
  });
});
