import { WindowedMap } from './windowed-map';

describe('WindowedMap', () => {
  it('remembers exactly the last `limit` keys and counts the rest as forgotten', () => {
    let map = WindowedMap.empty<string, number>(3);
    for (const [index, key] of ['a', 'b', 'c'].entries()) map = map.with(key, index);
    expect([...map]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    expect(map.forgotten).toBe(0);
    const four = map.with('d', 3);
    expect([...four.keys()]).toEqual(['b', 'c', 'd']);
    expect([four.has('a'), four.get('b'), four.size, four.forgotten]).toEqual([false, 1, 3, 1]);
    // The older version still sees its own window.
    expect([...map.keys()]).toEqual(['a', 'b', 'c']);
  });

  it('keeps memory under limit + 2 × max(limit, 1,024) entries however many keys are added', () => {
    let map = WindowedMap.empty<number, number>(5_000);
    for (let key = 0; key < 100_000; key += 1) map = map.with(key, key);
    expect([...map.keys()]).toEqual(Array.from({ length: 5_000 }, (_, index) => 95_000 + index));
    const shared = (map as unknown as { shared: { entries: Map<number, unknown> } }).shared;
    expect(shared.entries.size).toBeLessThanOrEqual(15_000);
    expect(map.forgotten).toBe(95_000);
  });

  it('reads a version up to 1,024 additions behind the newest, and refuses one whose entries were dropped', () => {
    let map = WindowedMap.empty<number, number>(4);
    const versions: WindowedMap<number, number>[] = [];
    for (let key = 0; key < 5_000; key += 1) {
      versions.push(map);
      map = map.with(key, key);
    }
    const recent = versions[5_000 - 1_024]!;
    expect([...recent.keys()]).toEqual([3_972, 3_973, 3_974, 3_975]);
    expect(recent.get(3_975)).toBe(3_975);
    expect(() => versions[5]!.get(1)).toThrow(/dropped/);
  });

  it('branches off an older version without changing what either version sees', () => {
    const base = WindowedMap.of<string, number>(
      [
        ['a', 1],
        ['b', 2],
      ],
      2,
    );
    const newer = base.with('c', 3);
    const branch = base.with('x', 9);
    expect([...newer]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
    expect([...branch]).toEqual([
      ['b', 2],
      ['x', 9],
    ]);
    expect([...base]).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(branch.forgotten).toBe(1);
  });

  it('restores the version it saved, forgotten count included', () => {
    const map = WindowedMap.of<string, number>(
      ['a', 'b', 'c', 'd', 'e'].map((key, index) => [key, index] as const),
      3,
    );
    const restored = WindowedMap.restore<string, number>(JSON.parse(JSON.stringify(map)));
    expect([...restored]).toEqual([...map]);
    expect([restored.forgotten, restored.total, restored.limit]).toEqual([2, 5, 3]);
    expect([...restored.with('f', 5)]).toEqual([...map.with('f', 5)]);
  });

  it('shares the same addition made again on an older version instead of copying', () => {
    const base = WindowedMap.of<string, number>(
      [
        ['a', 1],
        ['b', 2],
      ],
      5,
    );
    const first = base.with('c', 3);
    const again = base.with('c', 3);
    expect((again as unknown as { shared: unknown }).shared).toBe((first as unknown as { shared: unknown }).shared);
    expect([...again]).toEqual([...first]);
    // A different value at that ordinal is a real branch.
    expect([...base.with('c', 4)]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 4],
    ]);
    expect([...first]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });
});
