import { AppendOnlyMap } from './append-only-map';

describe('AppendOnlyMap', () => {
  it('adds keys without changing the version it was added to', () => {
    const empty = AppendOnlyMap.empty<string, number>();
    const one = empty.with('a', 1);
    const two = one.with('b', 2);
    expect([empty.size, one.size, two.size]).toEqual([0, 1, 2]);
    expect([empty.get('a'), one.get('a'), one.get('b'), two.get('b')]).toEqual([undefined, 1, undefined, 2]);
    expect([one.has('b'), two.has('b')]).toEqual([false, true]);
    expect([...one]).toEqual([['a', 1]]);
    expect([...two.keys()]).toEqual(['a', 'b']);
    expect([...two.values()]).toEqual([1, 2]);
  });

  it('keeps both branches apart when an older version is extended twice', () => {
    const base = AppendOnlyMap.of([['a', 1]]);
    const left = base.with('b', 2);
    const right = base.with('c', 3);
    expect([...left]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect([...right]).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    expect([left.has('c'), right.has('b'), base.has('b'), base.has('c')]).toEqual([false, false, false, false]);
    // The branch that copied can keep growing in place, and the original line too.
    expect([...right.with('d', 4)]).toEqual([
      ['a', 1],
      ['c', 3],
      ['d', 4],
    ]);
    expect([...left.with('e', 5)]).toEqual([
      ['a', 1],
      ['b', 2],
      ['e', 5],
    ]);
  });

  it('sets a key again in a new version only', () => {
    const first = AppendOnlyMap.of([
      ['a', 1],
      ['b', 2],
    ]);
    const second = first.with('a', 10);
    expect([first.get('a'), second.get('a'), second.size]).toEqual([1, 10, 2]);
    expect([...second]).toEqual([
      ['a', 10],
      ['b', 2],
    ]);
  });

  it('adds to the newest version without copying what it holds', () => {
    let map = AppendOnlyMap.empty<number, number>();
    const versions: AppendOnlyMap<number, number>[] = [];
    for (let key = 0; key < 1_000; key += 1) {
      map = map.with(key, key * 2);
      versions.push(map);
    }
    // Every version still sees exactly the keys added before it, whatever came after.
    expect(versions.map((version) => version.size)).toEqual(versions.map((_, index) => index + 1));
    expect(versions[9]!.get(9)).toBe(18);
    expect(versions[9]!.has(10)).toBe(false);
    expect(versions[999]!.get(0)).toBe(0);
  });
});
