import { MultiBar } from 'cli-progress';

// Progress of long command-line work (a rebuild, bench:all, a bulk import being followed), drawn
// with cli-progress: maintained, widely used, one dependency (string-width), and it already
// does what a hand-written bar gets wrong — redrawing in place at a bounded rate, an ETA from a
// moving window, restoring the cursor on Ctrl-C, and printing log lines above the bar.
//
// The bar goes to stderr, so stdout stays the command's result (JSON lines, a diff) and can be
// piped; and only to a terminal: in CI logs and redirected output there is no bar at all, not
// even a final line, so logs stay clean.

export type Progress = {
  /** False when the stream is not a terminal: every call then does nothing (log still writes). */
  readonly shown: boolean;
  update(value: number, detail?: string): void;
  setTotal(total: number): void;
  /** A line for the user that must not be torn by the bar (it is printed above it). */
  log(line: string): void;
  stop(): void;
};

export type ProgressOptions = {
  title: string;
  /** What the value counts, for the rate: "events", "benches", "rows". */
  unit: string;
  total: number;
  stream?: NodeJS.WriteStream;
  /** False hides the bar even on a terminal (a caller whose other output is redirected). */
  enabled?: boolean;
};

/** Units per second since the first update, rounded for display. Pure. */
export const ratePerSecond = (done: number, elapsedMs: number): string => {
  if (elapsedMs <= 0 || done <= 0) return '-';
  const rate = (done * 1000) / elapsedMs;
  return rate >= 100 ? Math.round(rate).toLocaleString('en') : rate.toFixed(1);
};

export const createProgress = ({ title, unit, total, stream = process.stderr, enabled = true }: ProgressOptions): Progress => {
  if (!enabled || stream.isTTY !== true) {
    const nothing = () => undefined;
    return { shown: false, update: nothing, setTotal: nothing, log: (line) => void stream.write(`${line}\n`), stop: nothing };
  }
  const bars = new MultiBar({
    stream,
    format: `${title} [{bar}] {percentage}% | {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}{detail}`,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 50,
    fps: 5,
    barsize: 30,
  });
  const bar = bars.create(Math.max(total, 1), 0, { rate: '-', detail: '' });
  let startedAt: number | undefined;
  let firstValue = 0;
  let stopped = false;
  return {
    shown: true,
    update: (value, detail) => {
      if (startedAt === undefined) {
        startedAt = Date.now();
        firstValue = value;
      }
      bar.update(value, { rate: ratePerSecond(value - firstValue, Date.now() - startedAt), detail: detail ? ` | ${detail}` : '' });
    },
    setTotal: (next) => bar.setTotal(Math.max(next, 1)),
    log: (line) => bars.log(`${line}\n`),
    stop: () => {
      if (stopped) return;
      stopped = true;
      bars.stop();
    },
  };
};
