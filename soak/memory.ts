import { readFileSync } from 'node:fs';
import { type AppName, appList, type Stack } from '../tests/support/stack';
import type { CheckResult } from './checks';

// Memory over the soak (issue 17: "memory flat over a 10-minute soak"): the resident set of every
// process of the stack, sampled from /proc every few seconds. A replica killed by the chaos comes
// back as a new process with its own series; only a process that lived through most of the traffic
// says anything about growth.

export type MemorySeries = { app: AppName; replica: number; pid: number; samples: { at: number; rssMb: number }[] };

export type MemoryFigure = {
  app: AppName;
  replica: number;
  pid: number;
  /** RSS once the traffic had run a quarter of its time (start-up and warm-up behind it). */
  afterWarmUpMb: number;
  endMb: number;
  maxMb: number;
  growthMb: number;
  /** Least-squares slope over the second half of the traffic after warm-up, in MB per 10 minutes. */
  slopeMbPer10Min: number;
};

const SAMPLE_EVERY_MS = 5_000;
/** A process may grow this much after warm-up before the soak calls it a leak, and also… */
const LEAK_GROWTH_MB = 96;
/** …only if it still grows at this rate over the second half (a step up that stops is a cache filling, not a leak). */
const LEAK_SLOPE_MB_PER_10_MIN = 48;
/** Below this much traffic, warm-up dominates: the figures are printed, growth is not judged. */
export const MEMORY_CHECK_MIN_MINUTES = 5;

const rssMb = (pid: number): number | undefined => {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((row) => row.startsWith('VmRSS:'));
    return line ? Number(line.replace(/\D+/g, '')) / 1024 : undefined;
  } catch {
    // The process ended between pid() and the read (a chaos kill): the next sample sees its successor.
    return undefined;
  }
};

export const sampleMemory = (stack: Stack) => {
  const series = new Map<number, MemorySeries>();
  const apps = appList.map((entry) => entry.name as AppName);
  const sample = () => {
    const at = Date.now();
    for (const app of apps) {
      for (let replica = 0; replica < (app === 'gateway' ? 1 : stack.replicas); replica += 1) {
        const pid = stack.pid(app, replica);
        if (pid === undefined) continue;
        const rss = rssMb(pid);
        if (rss === undefined) continue;
        const entry = series.get(pid) ?? { app, replica, pid, samples: [] };
        entry.samples.push({ at, rssMb: rss });
        series.set(pid, entry);
      }
    }
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return { series, stop: () => clearInterval(timer) };
};

const slopePerMs = (points: { at: number; rssMb: number }[]): number => {
  const meanAt = points.reduce((sum, point) => sum + point.at, 0) / points.length;
  const meanRss = points.reduce((sum, point) => sum + point.rssMb, 0) / points.length;
  const numerator = points.reduce((sum, point) => sum + (point.at - meanAt) * (point.rssMb - meanRss), 0);
  const denominator = points.reduce((sum, point) => sum + (point.at - meanAt) ** 2, 0);
  return denominator === 0 ? 0 : numerator / denominator;
};

const round = (value: number) => Math.round(value * 10) / 10;

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
    const afterWarmUp = measured[0]!.rssMb;
    const middle = (measured[0]!.at + measured.at(-1)!.at) / 2;
    const end = measured.at(-1)!.rssMb;
    figures.push({
      app: entry.app, replica: entry.replica, pid: entry.pid,
      afterWarmUpMb: round(afterWarmUp), endMb: round(end), maxMb: round(Math.max(...entry.samples.map((point) => point.rssMb))),
      growthMb: round(end - afterWarmUp), slopeMbPer10Min: round(slopePerMs(measured.filter((point) => point.at >= middle)) * 600_000),
    });
  }
  return figures.sort((a, b) => a.app.localeCompare(b.app) || a.replica - b.replica);
};

export const checkMemory = (figures: MemoryFigure[], trafficMinutes: number): CheckResult => {
  const name = `memory flat: no process grows more than ${LEAK_GROWTH_MB} MB after warm-up while still growing ${LEAK_SLOPE_MB_PER_10_MIN} MB per 10 min`;
  const summary = { processes: figures.length, maxGrowthMb: Math.max(0, ...figures.map((figure) => figure.growthMb)), maxSlopeMbPer10Min: Math.max(0, ...figures.map((figure) => figure.slopeMbPer10Min)) };
  if (trafficMinutes < MEMORY_CHECK_MIN_MINUTES) {
    return { name, failures: [], figures: summary, skipped: `not judged below ${MEMORY_CHECK_MIN_MINUTES} minutes of traffic (warm-up dominates); figures printed` };
  }
  const failures = figures
    .filter((figure) => figure.growthMb > LEAK_GROWTH_MB && figure.slopeMbPer10Min > LEAK_SLOPE_MB_PER_10_MIN)
    .map((figure) => `${figure.app} replica ${figure.replica} (pid ${figure.pid}) grew ${figure.afterWarmUpMb} → ${figure.endMb} MB after warm-up, still ${figure.slopeMbPer10Min} MB per 10 min`);
  if (figures.length === 0) failures.push('no process lived through the traffic to be measured');
  return { name, failures, figures: summary };
};
