import { checkMemory, type MemorySeries, memoryFigures } from './memory';

const MINUTE = 60_000;
const start = 1_000_000;
const end = start + 10 * MINUTE;

/** One sample every 5 s from `from` to `to`, RSS given by `rss(minutesIntoTraffic)`. */
const series = (
  pid: number,
  rss: (minute: number) => number,
  from = start - MINUTE,
  to = end,
  heap?: (minute: number, at: number) => number,
): MemorySeries => {
  const samples = [];
  for (let at = from; at <= to; at += 5_000)
    samples.push({ at, rssMb: rss((at - start) / MINUTE), ...(heap ? { heapMb: heap((at - start) / MINUTE, at) } : {}) });
  return { app: 'accounts', replica: 0, pid, samples };
};
/** A heap that collects back to `floor` every 30 s and climbs 40 MB between collections. */
const sawtooth = (floor: (minute: number) => number) => (minute: number, at: number) => floor(minute) + ((at % 30_000) / 30_000) * 40;

describe('memory over the soak', () => {
  it('passes a process that settles after warm-up', () => {
    const figures = memoryFigures([series(1, (minute) => 150 + Math.min(minute, 2) * 20)], start, end);
    expect(figures).toHaveLength(1);
    expect(figures[0]!.growthMb).toBeLessThan(1);
    expect(checkMemory(figures, 10).failures).toEqual([]);
  });

  it('fails a process that keeps growing to the end, naming it with its figures', () => {
    const figures = memoryFigures([series(2, (minute) => 150 + minute * 20)], start, end);
    const result = checkMemory(figures, 10);
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toBe(
      'accounts replica 0 (pid 2): rss grew 150 MB after warm-up and still grows 200 MB per 10 min (RSS 200 → 350 MB)',
    );
  });

  it('passes one step up (a cache filling) that does not keep growing', () => {
    const figures = memoryFigures([series(3, (minute) => (minute < 4 ? 150 : 260))], start, end);
    expect(figures[0]!.growthMb).toBe(110);
    expect(checkMemory(figures, 10).failures).toEqual([]);
  });

  it('judges a service on its heap floor: RSS that V8 grows and keeps is not a leak while the heap comes back down', () => {
    const figures = memoryFigures(
      [
        series(
          7,
          (minute) => 150 + minute * 30,
          start - MINUTE,
          end,
          sawtooth(() => 80),
        ),
      ],
      start,
      end,
    );
    expect(figures[0]).toMatchObject({
      judgedOn: 'heap floor',
      heapFloorAfterWarmUpMb: 80,
      heapFloorEndMb: 80,
      afterWarmUpMb: 225,
      endMb: 450,
    });
    expect(checkMemory(figures, 10).failures).toEqual([]);
  });

  it('fails a service whose heap floor keeps rising, whatever its RSS', () => {
    const figures = memoryFigures(
      [
        series(
          8,
          () => 300,
          start - MINUTE,
          end,
          sawtooth((minute) => 80 + minute * 15),
        ),
      ],
      start,
      end,
    );
    expect(figures[0]!.judgedOn).toBe('heap floor');
    expect(checkMemory(figures, 10).failures[0]).toMatch(
      /^accounts replica 0 \(pid 8\): heap floor grew \d+(\.\d)? MB after warm-up and still grows 150 MB per 10 min \(RSS 300 → 300 MB\)$/,
    );
  });

  it('leaves out a replica restarted by the chaos late in the traffic, and a killed one', () => {
    const restarted = series(4, (minute) => 100 + minute * 50, start + 6 * MINUTE);
    const killed = series(5, (minute) => 100 + minute * 50, start - MINUTE, start + 4 * MINUTE);
    expect(memoryFigures([restarted, killed], start, end)).toEqual([]);
  });

  it('prints but does not judge a run too short to leave warm-up behind, and says so', () => {
    const figures = memoryFigures(
      [series(6, (minute) => 150 + minute * 100, start - MINUTE, start + 2 * MINUTE)],
      start,
      start + 2 * MINUTE,
    );
    const result = checkMemory(figures, 2);
    expect(result.failures).toEqual([]);
    expect(result.skipped).toMatch(/not judged below 5 minutes/);
    expect(result.figures).toMatchObject({ processes: 1 });
  });

  it('fails a long run in which no process could be measured', () => {
    expect(checkMemory([], 10).failures).toEqual(['no process lived through the traffic to be measured']);
  });
});
