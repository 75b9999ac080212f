/** How far behind the newest version a version stays readable, at least (see WindowedMap). */
const MIN_LAG = 1_024;

/**
 * An immutable map that remembers only its last `limit` keys, where adding a key to the newest
 * version costs O(1) (amortised) and memory stays under limit + 2 × max(limit, 1,024) entries
 * however many are added.
 *
 * The ledger remembers operation ids and closed hold ids for idempotency. Keeping all of them made
 * a busy account's state grow with its age (docs/decisions/0018); this keeps the newest `limit`
 * and counts the rest as `forgotten`, which the deciders answer from the stream's index instead.
 *
 * Versions share one underlying Map: every entry records its ordinal (the count of keys added
 * before it), and a version sees the entries with ordinal in [total - limit, total). Entries that
 * no recent version can see are dropped in bulk, keeping the newest limit + lag where lag is
 * max(limit, 1,024), so a version up to `lag` additions behind the newest still reads correctly
 * (the writer's memory of an account is never more than one batch of ≤ 256 commands behind); an
 * older one throws on read instead of answering wrongly (the writer then reloads the account).
 * Adding to an older version (a decision that was thrown away) copies what that version sees.
 */
export class WindowedMap<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly shared: { entries: Map<K, { value: V; ordinal: number }>; floor: number; next: number },
    /** Keys ever added along this version's history, including the forgotten ones. */
    readonly total: number,
    readonly limit: number,
  ) {}

  static empty<K, V>(limit: number): WindowedMap<K, V> {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`A window must hold at least one key, got ${limit}.`);
    return new WindowedMap<K, V>({ entries: new Map(), floor: 0, next: 0 }, 0, limit);
  }

  static of<K, V>(entries: Iterable<readonly [K, V]>, limit: number): WindowedMap<K, V> {
    let map = WindowedMap.empty<K, V>(limit);
    for (const [key, value] of entries) map = map.with(key, value);
    return map;
  }

  /** A version as it was saved (see toJSON): `forgotten` keys before the visible ones. */
  static restore<K, V>(saved: { limit: number; forgotten: number; entries: [K, V][] }): WindowedMap<K, V> {
    const start = saved.forgotten;
    const entries = new Map<K, { value: V; ordinal: number }>();
    saved.entries.forEach(([key, value], index) => entries.set(key, { value, ordinal: start + index }));
    const total = start + saved.entries.length;
    return new WindowedMap({ entries, floor: start, next: total }, total, saved.limit);
  }

  get size(): number {
    return this.total - this.start;
  }

  /** Keys added and no longer remembered: 0 means this map still knows every key it was given. */
  get forgotten(): number {
    return this.start;
  }

  private get start(): number {
    return Math.max(0, this.total - this.limit);
  }

  /** A version with key set to value; this version is unchanged. */
  with(key: K, value: V): WindowedMap<K, V> {
    const { shared } = this;
    if (shared.next === this.total && !shared.entries.has(key)) {
      shared.entries.set(key, { value, ordinal: this.total });
      shared.next += 1;
      const lag = Math.max(this.limit, MIN_LAG);
      if (shared.next - shared.floor > this.limit + 2 * lag) this.compact(shared.next - this.limit - lag);
      return new WindowedMap(shared, this.total + 1, this.limit);
    }
    // The same addition a discarded branch already made at this ordinal (a decision that folded its
    // own events, then the writer folding them again): share it instead of copying the window.
    const same = shared.entries.get(key);
    if (same !== undefined && same.ordinal === this.total && same.value === value && this.start >= shared.floor) {
      return new WindowedMap(shared, this.total + 1, this.limit);
    }
    // A branch off an older version, or a key set again: a map of its own holding what this one sees.
    const own = new Map<K, { value: V; ordinal: number }>();
    let ordinal = this.start;
    for (const [visibleKey, visibleValue] of this) if (visibleKey !== key) own.set(visibleKey, { value: visibleValue, ordinal: ordinal++ });
    own.set(key, { value, ordinal });
    const total = ordinal + 1;
    const floor = Math.max(0, total - this.limit);
    const trimmed = new Map([...own].filter(([, entry]) => entry.ordinal >= floor));
    return new WindowedMap({ entries: trimmed, floor, next: total }, total, this.limit);
  }

  private compact(cutoff: number): void {
    const { shared } = this;
    for (const [key, entry] of shared.entries) {
      if (entry.ordinal >= cutoff) break;
      shared.entries.delete(key);
    }
    shared.floor = cutoff;
  }

  private check(): void {
    if (this.start < this.shared.floor) {
      throw new Error(
        `A WindowedMap version ${this.shared.next - this.total} additions behind the newest was read after its entries were dropped.`,
      );
    }
  }

  private visible(key: K): { value: V } | undefined {
    this.check();
    const entry = this.shared.entries.get(key);
    return entry !== undefined && entry.ordinal < this.total && entry.ordinal >= this.start ? entry : undefined;
  }

  get(key: K): V | undefined {
    return this.visible(key)?.value;
  }

  has(key: K): boolean {
    return this.visible(key) !== undefined;
  }

  /** Insertion order is ordinal order: skip the forgotten, stop at the first entry this version does not have. */
  *entries(): MapIterator<[K, V]> {
    this.check();
    for (const [key, entry] of this.shared.entries) {
      if (entry.ordinal >= this.total) return;
      if (entry.ordinal >= this.start) yield [key, entry.value];
    }
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }

  /** What a snapshot keeps: the window's entries in order and how many came before them. */
  toJSON(): { limit: number; forgotten: number; entries: [K, V][] } {
    return { limit: this.limit, forgotten: this.forgotten, entries: [...this.entries()] };
  }
}
