// Pins down what the stream memory hands out: only the decider's own fold, only a whole stream's
// commandIds, never an older state over a newer one, and the least recently used forgotten first.
import { type KnownStream, StreamMemory, type StreamMemoryResult } from './stream-memory';
import type { RecordedEvent } from './types';

const deciderA = { name: 'A' };
const deciderB = { name: 'B' };
const known = (version: number, commanded: readonly RecordedEvent[] | null = []): KnownStream<number> => ({
  state: version,
  version,
  commanded,
  snapshotVersion: 0,
});

describe('StreamMemory', () => {
  it('given a stream remembered as one decider folds it, then another decider finds nothing (a miss)', () => {
    const results: StreamMemoryResult[] = [];
    const memory = new StreamMemory(4, (result) => results.push(result));
    memory.remember('s', deciderA, known(3));
    expect(memory.recall('s', deciderA, false)).toEqual(known(3));
    expect(memory.recall('s', deciderB, false)).toBeUndefined();
    expect(results).toEqual(['miss']);
  });

  it('given a state from a snapshot (its tail seen only), then a command with a commandId finds nothing, one without does', () => {
    const memory = new StreamMemory(4);
    memory.remember('s', deciderA, known(9, null));
    expect(memory.recall('s', deciderA, true)).toBeUndefined();
    expect(memory.recall('s', deciderA, false)).toEqual(known(9, null));
  });

  it('given a newer state remembered, then a slower read of an older version does not replace it; another decider’s does', () => {
    const memory = new StreamMemory(4);
    memory.remember('s', deciderA, known(5));
    memory.remember('s', deciderA, known(4));
    expect(memory.recall('s', deciderA, false)?.version).toBe(5);
    memory.remember('s', deciderB, known(4));
    expect(memory.recall('s', deciderB, false)?.version).toBe(4);
  });

  it('given a snapshot known at 6, then a full read of version 7 keeps counting from it', () => {
    const memory = new StreamMemory(4);
    memory.remember('s', deciderA, { ...known(6, null), snapshotVersion: 6 });
    memory.remember('s', deciderA, known(7));
    expect(memory.recall('s', deciderA, true)).toMatchObject({ version: 7, snapshotVersion: 6 });
  });

  it('given an entry found behind, then forgetting it keeps a newer one put in meanwhile', () => {
    const memory = new StreamMemory(4);
    const behind = known(2);
    memory.remember('s', deciderA, behind);
    memory.remember('s', deciderA, known(3));
    memory.forget('s', behind);
    expect(memory.recall('s', deciderA, false)?.version).toBe(3);
    const newer = memory.recall<number>('s', deciderA, false);
    if (newer) memory.forget('s', newer);
    expect(newer?.version).toBe(3);
    expect(memory.recall('s', deciderA, false)).toBeUndefined();
  });

  it('given more streams than it holds, then the one used longest ago is forgotten', () => {
    const memory = new StreamMemory(2);
    memory.remember('a', deciderA, known(1));
    memory.remember('b', deciderA, known(1));
    // A command on a puts it back: a is now the most recently used.
    memory.remember('a', deciderA, known(2));
    memory.remember('c', deciderA, known(1));
    expect(['a', 'b', 'c'].map((id) => memory.recall(id, deciderA, false)?.version)).toEqual([2, undefined, 1]);
  });

  it('refuses a capacity below one: a memory that is off is left out', () => {
    expect(() => new StreamMemory(0)).toThrow(/at least one stream/);
  });
});
