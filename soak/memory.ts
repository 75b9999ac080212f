import { readFileSync } from 'node:fs';
import { type AppName, appList, type Stack } from '../tests/support/stack';
import type { CheckResult } from './checks';

// Memory over the soak (issue 17: "memory flat over a 10-minute soak"). Every few seconds, each
// process of the stack: its resident set from /proc, and for the services (not the gateway, whose
// port is public and has no /metrics) the V8 heap in use from /metrics. RSS is what an operator
// sees, but V8 grows its heap lazily and keeps what it took, so a leak is judged on the heap's
// floor: the least heap in use within each half minute (what survives the collections). A replica
// killed by the chaos comes back as a new process with its own series; only a process that lived
// through most of the traffic says anything about growth.

export type MemorySample = { at: number; rssMb: number; heapMb?: number };
export type MemorySeries = { app: AppName; replica: number; pid: number; samples: MemorySample[] };

export type MemoryFigure = {
  app: AppName;
  replica: number;
  pid: number;
  /** RSS once the traffic had run a quarter of its time (start-up and warm-up behind it), and at its end. */
  afterWarmUpMb: number;
  endMb: number;
  maxMb: number;
  /** The heap's floor (least heap in use per half minute) after warm-up and at the end; absent for the gateway. */
  heapFloorAfterWarmUpMb?: number;
  heapFloorEndMb?: number;
  /**
   * Growth and least-squares slope over the second half of the traffic after
   * warm-up (MB per 10 minutes): of the heap floor where known, else of RSS.
   */
  growthMb: number;
  slopeMbPer10Min: number;
  judgedOn: 'heap floor' | 'rss';
};

const SAMPLE_EVERY_MS = 5_000;
const FLOOR_WINDOW_MS = 30_000;
/** A process may grow this much after warm-up before the soak calls it a leak, and also… */
const LEAK_GROWTH_MB = 64;
/** …only if it still grows at this rate over the second half (a step up that stops is a cache filling, not a leak). */
const LEAK_SLOPE_MB_PER_10_MIN = 32;
/** Below this much traffic, warm-up dominates: the figures are printed, growth is not judged. */
export const MEMORY_CHECK_MIN_MINUTES = 5;

const rssMb = (pid: number): number | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((row) => row.startsWith('VmRSS:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : undefined;
  } catch {
    // The process ended between pid() and the read (a chaos kill): the next sample sees its successor.
    return undefined;
  }
};

/** The V8 heap in use, from prom-client's default metrics on the service's health port. */
const heapMb = async (metricsUrl: string): Promise<number | undefined> => {
  const text = await fetch(metricsUrl, { signal: AbortSignal.timeout(2_000) }).then((reply) => (reply.ok ? reply.text() : ''));
  const line = text.split('\n').find((row) => row.startsWith('nodejs_heap_size_used_bytes '));
  return line ? Number(line.split(' ')[1]) / 1024 / 1024 : undefined;
};

export const sampleMemory = (stack: Stack) => {
  const series = new Map<number, MemorySeries>();
  const apps = appList.map((entry) => entry.name as AppName);
  let sampling = false;
  const sample = async () => {
    if (sampling) return;
    sampling = true;
    try {
      await sampleOnce();
    } finally {
      sampling = false;
    }
  };
  const sampleOnce = async () => {
    const at = Date.now();
    const reads: Promise<void>[] = [];
    for (const app of apps) {
      for (let replica = 0; replica < (app === 'gateway' ? 1 : stack.replicas); replica += 1) {
        const pid = stack.pid(app, replica);
        const rss = pid === undefined ? undefined : rssMb(pid);
        if (pid === undefined || rss === undefined) continue;
        const entry = series.get(pid) ?? { app, replica, pid, samples: [] };
        series.set(pid, entry);
        const point: MemorySample = { at, rssMb: rss };
        entry.samples.push(point);
        if (app === 'gateway') continue;
        const metricsUrl = stack.healthUrl(app, replica).replace(/\/health$/, '/metrics');
        reads.push(
          heapMb(metricsUrl).then(
            (heap) => void (heap !== undefined && (point.heapMb = heap)),
            // A replica being killed or restarted does not answer; its RSS sample stands alone.
            () => undefined,
          ),
        );
      }
    }
    await Promise.all(reads);
  };
  // A sample that fails says so and the next one tries again; the figures then have a gap.
  const sampleLoudly = () =>
    void sample().catch((error: unknown) => console.error(`[soak] memory sample failed: ${(error as Error).message}`));
  sampleLoudly();
  const timer = setInterval(sampleLoudly, SAMPLE_EVERY_MS);
  return { series, stop: () => clearInterval(timer) };
};

const slopePerMs = (points: { at: number; mb: number }[]): number => {
  const meanAt = points.reduce((sum, point) => sum + point.at, 0) / points.length;
  const meanMb = points.reduce((sum, point) => sum + point.mb, 0) / points.length;
  const numerator = points.reduce((sum, point) => sum + (point.at - meanAt) * (point.mb - meanMb), 0);
  const denominator = points.reduce((sum, point) => sum + (point.at - meanAt) ** 2, 0);
  return denominator === 0 ? 0 : numerator / denominator;
};

/**
 * The least heap in use within each window: the floor the collections come back to. A window cut
 * short (the start or end of the measured span, a restart) has too few samples to hold a
 * collection, so only windows with most of their samples count.
 */
export const heapFloors = (samples: MemorySample[], windowMs = FLOOR_WINDOW_MS): { at: number; mb: number }[] => {
  const floors = new Map<number, { at: number; mb: number; count: number }>();
  for (const sample of samples) {
    if (sample.heapMb === undefined) continue;
    const window = Math.floor(sample.at / windowMs);
    const floor = floors.get(window) ?? { at: window * windowMs + windowMs / 2, mb: sample.heapMb, count: 0 };
    floors.set(window, { ...floor, mb: Math.min(floor.mb, sample.heapMb), count: floor.count + 1 });
  }
  const enough = Math.max(1, Math.round(windowMs / SAMPLE_EVERY_MS) - 1);
  return [...floors.values()]
    .filter((floor) => floor.count >= enough)
    .sort((a, b) => a.at - b.at)
    .map(({ at, mb }) => ({ at, mb }));
};

const round = (value: number) => Math.round(value * 10) / 10;

/** Growth and slope over the second half of the points, from the first point. */
const trend = (points: { at: number; mb: number }[]) => {
  const middle = (points[0]!.at + points.at(-1)!.at) / 2;
  return {
    growthMb: round(points.at(-1)!.mb - points[0]!.mb),
    slopeMbPer10Min: round(slopePerMs(points.filter((point) => point.at >= middle)) * 600_000),
  };
};

/** Figures for every process that ran from before the first quarter of the traffic to its end. */
export const memoryFigures = (series: Iterable<MemorySeries>, trafficStart: number, trafficEnd: number): MemoryFigure[] => {
  const warmUpEnd = trafficStart + (trafficEnd - trafficStart) / 4;
  const figures: MemoryFigure[] = [];
  for (const entry of series) {
    const first = entry.samples[0];
    const last = entry.samples.at(-1);
    if (!first || !last || first.at > warmUpEnd || last.at < trafficEnd - 2 * SAMPLE_EVERY_MS) continue;
    const measured = entry.samples.filter((point) => point.at >= warmUpEnd && point.at <= trafficEnd + 2 * SAMPLE_EVERY_MS);
    if (measured.length < 3) continue;
    const rss = measured.map((point) => ({ at: point.at, mb: point.rssMb }));
    const floors = heapFloors(measured);
    const judged = floors.length >= 3 ? { on: 'heap floor' as const, points: floors } : { on: 'rss' as const, points: rss };
    figures.push({
      app: entry.app,
      replica: entry.replica,
      pid: entry.pid,
      afterWarmUpMb: round(rss[0]!.mb),
      endMb: round(rss.at(-1)!.mb),
      maxMb: round(Math.max(...entry.samples.map((point) => point.rssMb))),
      ...(floors.length >= 3 ? { heapFloorAfterWarmUpMb: round(floors[0]!.mb), heapFloorEndMb: round(floors.at(-1)!.mb) } : {}),
      ...trend(judged.points),
      judgedOn: judged.on,
    });
  }
  return figures.sort((a, b) => a.app.localeCompare(b.app) || a.replica - b.replica);
};

export const checkMemory = (figures: MemoryFigure[], trafficMinutes: number): CheckResult => {
  const name =
    `memory flat: no process's heap floor (RSS for the gateway) grows more than ${LEAK_GROWTH_MB} MB after warm-up while ` +
    `still growing ${LEAK_SLOPE_MB_PER_10_MIN} MB per 10 min`;
  const summary = {
    processes: figures.length,
    maxGrowthMb: Math.max(0, ...figures.map((figure) => figure.growthMb)),
    maxSlopeMbPer10Min: Math.max(0, ...figures.map((figure) => figure.slopeMbPer10Min)),
  };
  if (trafficMinutes < MEMORY_CHECK_MIN_MINUTES) {
    return {
      name,
      failures: [],
      figures: summary,
      skipped: `not judged below ${MEMORY_CHECK_MIN_MINUTES} minutes of traffic (warm-up dominates); figures printed`,
    };
  }
  const failures = figures
    .filter((figure) => figure.growthMb > LEAK_GROWTH_MB && figure.slopeMbPer10Min > LEAK_SLOPE_MB_PER_10_MIN)
    .map(
      (figure) =>
        `${figure.app} replica ${figure.replica} (pid ${figure.pid}): ${figure.judgedOn} grew ${figure.growthMb} MB after warm-up and ` +
        `still grows ${figure.slopeMbPer10Min} MB per 10 min (RSS ${figure.afterWarmUpMb} → ${figure.endMb} MB)`,
    );
  if (figures.length === 0) failures.push('no process lived through the traffic to be measured');
  return { name, failures, figures: summary };
};
