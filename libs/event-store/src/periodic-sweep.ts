// A persisted timer is a read model with a due time; a sweep finds the rows that are due and acts
// on them. PeriodicSweep runs one such sweep every intervalMs, never two at once (a sweep asked for
// while one runs joins it), and on shutdown waits for the one in flight. The sweep itself stays
// with its owner, so tests call sweep() directly with a moved clock.

export class PeriodicSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  /**
   * run: one sweep, returning how much it changed; onError: a failed periodic sweep (the next one
   * retries). Required: a timer that fails in silence leaves payments pending with nobody told.
   */
  constructor(
    private readonly run: () => Promise<number>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sweep().catch(this.onError), intervalMs);
    this.timer.unref();
  }

  sweep(): Promise<number> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    // The sweep in flight reports its own failure through onError (or to its direct caller).
    await this.running?.catch(() => undefined);
  }
}
