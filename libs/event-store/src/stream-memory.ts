import { RecentlySeen } from './recently-seen';
import type { RecordedEvent } from './types';
import { wholeNumberSetting } from './whole-number-setting';

/**
 * A process's memory of the streams its commands ran on (docs/decisions/0058), so the next command
 * on a stream this process just read or appended to decides without reading it again.
 *
 * What it holds: only what this process itself read from the store or appended to it, folded by the
 * decider that did so (the decider's identity is part of the match: two deciders may fold one stream
 * differently), with the version that state is the fold of.
 *
 * The one rule that keeps it sound (handleCommand applies it): a decision made on remembered state
 * is kept only when its append, naming the remembered version, succeeds. The store's version check
 * then proves the memory was the stream's state, so the decision is the one a read would have given.
 * Anything else decided on memory (nothing to do, a refusal, a version conflict) is thrown away: the
 * entry is forgotten, the stream is read and the command decided again exactly as without a memory.
 * A stale memory therefore costs a decision and maybe a refused append, never a wrong answer, a wrong
 * refusal or a missed replay. It does not follow other replicas' writes; it only learns its own.
 *
 * State is shared, never copied, and that is safe because nothing mutates it:
 * - every evolve handed to EventSourcing.handle returns a new state and leaves the one it is given
 *   alone (checked in every apps/<service>/src at the time of writing: spreads and fresh objects only; the
 *   accounts' WindowedMap state is folded by AccountWriter, which keeps its own memory);
 * - decide is pure (STYLE rule 1) and callers only read the state a command returns;
 * - evolve runs only after a successful append, on the remembered state. Were an evolve to mutate
 *   its input, the entry it mutated would name a version the stream has already left, so a decision
 *   on it would be refused by the store; the entry holding the evolved state is put in synchronously
 *   after the fold, with the version the append returned.
 * It also relies on an append returning its events as a read returns them (the event store
 * contract pins readStream's events toStrictEqual to appendToStream's), so a state folded from an
 * append is the state a later read folds.
 */
export type KnownStream<State> = {
  readonly state: State;
  /** The stream's version `state` is the fold of. */
  readonly version: number;
  /**
   * The stream's events that carry a commandId, when every event of the stream was seen (read from
   * the start, or appended to a stream known whole); null when the state came from a snapshot and
   * only the events after it were seen: such an entry cannot say a commandId is new.
   */
  readonly commanded: readonly RecordedEvent[] | null;
  /**
   * The version of the snapshot the state was loaded from or this process last saved (0: none), for
   * snapshotDue. Updated in place once a snapshot is saved; only counts towards the next snapshot.
   */
  snapshotVersion: number;
};

/** What the memory did for one command: served it, had nothing usable, or was behind the stream and thrown away. */
export type StreamMemoryResult = 'hit' | 'miss' | 'stale';

/** Streams remembered per process when COMMAND_STREAM_MEMORY is not set. */
export const DEFAULT_COMMAND_STREAM_MEMORY = 2_048;

/** COMMAND_STREAM_MEMORY as a service's config.ts parses it: streams remembered, 0 turns the memory off. */
export const commandStreamMemoryFrom = (env: NodeJS.ProcessEnv): number =>
  wholeNumberSetting('COMMAND_STREAM_MEMORY', env['COMMAND_STREAM_MEMORY'], {
    fallback: DEFAULT_COMMAND_STREAM_MEMORY,
    min: 0,
    means: 'a whole number of streams (0 turns the memory off)',
  });

/** The commandId-carrying events among these, which is all a commandId lookup reads. */
export const commandedOf = (events: readonly RecordedEvent[]): RecordedEvent[] =>
  events.filter((event) => event.metadata.commandId !== undefined);

type Entry = { decider: object; known: KnownStream<unknown> };

/**
 * At most `capacity` streams, the least recently used forgotten first: every command that uses an
 * entry puts it back (or forgets it), which is what makes RecentlySeen's order one of use.
 */
export class StreamMemory {
  private readonly streams: RecentlySeen<Entry>;

  constructor(
    readonly capacity: number,
    private readonly onResult: (result: StreamMemoryResult) => void = () => undefined,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`A stream memory holds at least one stream, got ${capacity} (leave it out to turn the memory off).`);
    this.streams = new RecentlySeen(capacity);
  }

  /**
   * What this process knows of the stream as `decider` folds it, or undefined (counted as a miss).
   * needsCommandIds: the command carries a commandId, so only an entry that saw the whole stream will do.
   */
  recall<State>(streamId: string, decider: object, needsCommandIds: boolean): KnownStream<State> | undefined {
    const entry = this.streams.get(streamId);
    if (entry && entry.decider === decider && (!needsCommandIds || entry.known.commanded !== null))
      return entry.known as KnownStream<State>;
    this.onResult('miss');
    return undefined;
  }

  /**
   * Keeps what was read or appended; a slower read does not replace a newer state the same decider
   * left. A full read (a command with a commandId loads no snapshot) keeps the snapshot the entry
   * it replaces knew of, so snapshots stay due `every` events apart.
   */
  remember<State>(streamId: string, decider: object, known: KnownStream<State>): void {
    const current = this.streams.get(streamId);
    if (current && current.decider === decider) {
      if (current.known.version > known.version) return;
      known.snapshotVersion = Math.max(known.snapshotVersion, current.known.snapshotVersion);
    }
    this.streams.remember(streamId, { decider, known });
  }

  /** Forgets the entry a command found behind the stream, unless a newer one has replaced it meanwhile. */
  forget(streamId: string, known: KnownStream<unknown>): void {
    if (this.streams.get(streamId)?.known === known) this.streams.forget(streamId);
  }

  /** Counts what the memory did for a command it served or that found it behind. */
  note(result: Exclude<StreamMemoryResult, 'miss'>): void {
    this.onResult(result);
  }
}
