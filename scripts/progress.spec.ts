import { PassThrough } from 'node:stream';
import { createProgress, ratePerSecond } from './progress';

const captured = (isTTY: boolean) => {
  const stream = Object.assign(new PassThrough(), { isTTY, columns: 120 }) as unknown as NodeJS.WriteStream & PassThrough;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
};

describe('createProgress', () => {
  it('given a stream that is not a terminal (CI, a pipe), when work progresses, then no bar is written, only log lines', () => {
    const { stream, text } = captured(false);
    const progress = createProgress({ title: 'rebuild', unit: 'events', total: 100, stream });
    progress.update(10);
    progress.update(100);
    progress.log('rebuilt');
    progress.stop();
    expect(progress.shown).toBe(false);
    expect(text()).toBe('rebuilt\n');
  });

  it('given a terminal, when work progresses, then the bar shows the count, the rate and an ETA', () => {
    const { stream, text } = captured(true);
    const progress = createProgress({ title: 'rebuild', unit: 'events', total: 100, stream });
    progress.update(0);
    progress.update(40, 'customers');
    progress.stop();
    expect(progress.shown).toBe(true);
    expect(text()).toMatch(/rebuild \[.*\] 40% \| 40\/100 events \| .* events\/s \| ETA .* \| customers/);
  });
});

describe('ratePerSecond', () => {
  it('given work done over time, when rated, then it is units per second', () => {
    expect(ratePerSecond(500, 2_000)).toBe('250');
    expect(ratePerSecond(3, 2_000)).toBe('1.5');
    expect(ratePerSecond(0, 0)).toBe('-');
  });
});
