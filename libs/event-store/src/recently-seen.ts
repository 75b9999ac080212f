/**
 * The last `capacity` keys remembered, each with a value; the oldest is forgotten first. For memory
 * that only saves work when it holds (a miss just does the work), never for what must be kept.
 */
export class RecentlySeen<Value> {
  private readonly entries = new Map<string, Value>();

  constructor(private readonly capacity: number) {}

  remember(key: string, value: Value): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** The value remembered for the key, or undefined. */
  get(key: string): Value | undefined {
    return this.entries.get(key);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}
