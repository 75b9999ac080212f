/**
 * An immutable map that only gains keys, where adding a key to the newest version costs O(1).
 *
 * An account's state remembers every operation id and every closed hold for idempotency, so
 * copying those maps on every event (to keep evolve pure) made each event cost O(operations) and
 * replaying a busy account O(operations²). Versions here share one underlying Map: every entry
 * records the size of the version that added it, and a version sees only the entries added before
 * its size. Adding to an older version (a branch, e.g. a decision that was thrown away) copies what
 * that version sees, so every version keeps the view it was created with.
 */
export class AppendOnlyMap<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    private readonly shared: { entries: Map<K, { value: V; index: number }> },
    readonly size: number,
  ) {}

  static empty<K, V>(): AppendOnlyMap<K, V> {
    return new AppendOnlyMap<K, V>({ entries: new Map() }, 0);
  }

  static of<K, V>(entries: Iterable<readonly [K, V]>): AppendOnlyMap<K, V> {
    let map = AppendOnlyMap.empty<K, V>();
    for (const [key, value] of entries) map = map.with(key, value);
    return map;
  }

  /** A version with key set to value; this version is unchanged. */
  with(key: K, value: V): AppendOnlyMap<K, V> {
    const { entries } = this.shared;
    if (entries.size === this.size && !entries.has(key)) {
      entries.set(key, { value, index: this.size });
      return new AppendOnlyMap(this.shared, this.size + 1);
    }
    // A branch off an older version, or a key set again: give the new version entries of its own.
    const own = new Map<K, { value: V; index: number }>();
    let index = 0;
    for (const [visibleKey, visibleValue] of this) own.set(visibleKey, { value: visibleValue, index: index++ });
    const existing = own.get(key);
    if (existing) {
      existing.value = value;
      return new AppendOnlyMap({ entries: own }, index);
    }
    own.set(key, { value, index });
    return new AppendOnlyMap({ entries: own }, index + 1);
  }

  get(key: K): V | undefined {
    const entry = this.shared.entries.get(key);
    return entry !== undefined && entry.index < this.size ? entry.value : undefined;
  }

  has(key: K): boolean {
    const entry = this.shared.entries.get(key);
    return entry !== undefined && entry.index < this.size;
  }

  /** Insertion order is index order, so the entries this version sees come first. */
  *entries(): MapIterator<[K, V]> {
    for (const [key, entry] of this.shared.entries) {
      if (entry.index >= this.size) return;
      yield [key, entry.value];
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
}
