import type { Logger } from './logger';
import { saveSnapshotQuietly, snapshotDue, type SnapshotCodec, type SnapshotStore } from './snapshot-store';
import { commandedOf, type KnownStream, type StreamMemory } from './stream-memory';
import { type AppendMetadata, type EventStore, type NewEvent, type RecordedEvent, WrongExpectedVersionError } from './types';

type EvolvedEvent = { type: string; data: Record<string, unknown> };

export type CommandResult<State> = { state: State; events: RecordedEvent[]; version: number; replayed: boolean };

/** Where a command finds and keeps snapshots (see snapshot-store.ts); `every` 0 reads snapshots but takes none. */
export type CommandSnapshots = { store: SnapshotStore; every: number; logger?: Logger };

const DEFAULT_RETRIES = 3;
const MAX_RETRIES = 10;
const BACKOFF_CAP_MS = 100;

/** A short, jittered pause so writers that just collided do not collide again in lockstep. */
const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(BACKOFF_CAP_MS, 5 * 2 ** attempt) * Math.random()));

type CommandDecider<State, E extends EvolvedEvent> = {
  evolve: (state: State, event: E) => State;
  initialState: () => State;
  snapshot?: SnapshotCodec<State>;
};

const evolveAll = <State, E extends EvolvedEvent>(decider: CommandDecider<State, E>, state: State, events: RecordedEvent[]): State =>
  events.reduce((current, event) => decider.evolve(current, event as unknown as E), state);

/** The stream's state: from its snapshot and the events after it when `snapshots` are given and one is trusted, else from every event. */
const loadState = async <State, E extends EvolvedEvent>(
  store: EventStore,
  streamId: string,
  decider: CommandDecider<State, E>,
  snapshots: CommandSnapshots | undefined,
): Promise<KnownStream<State>> => {
  const codec = decider.snapshot;
  const snapshot = snapshots && codec ? await snapshots.store.load(streamId, codec.deciderVersion) : null;
  if (snapshot && codec) {
    const tail = await store.readStream(streamId, { fromPosition: snapshot.version + 1 });
    // A snapshot ahead of its stream (the events were removed, a restored backup) is not trusted.
    if (tail.version >= snapshot.version) {
      return {
        state: evolveAll(decider, codec.deserialize(snapshot.state), tail.events),
        version: tail.version,
        commanded: null,
        snapshotVersion: snapshot.version,
      };
    }
  }
  const full = await store.readStream(streamId);
  return {
    state: evolveAll(decider, decider.initialState(), full.events),
    version: full.version,
    commanded: commandedOf(full.events),
    snapshotVersion: 0,
  };
};

/** The decided events as the store takes them: type, data and the schema version when the event names one. */
export const toNewEvents = (decided: readonly EvolvedEvent[]): NewEvent[] =>
  decided.map((event) => {
    const { schemaVersion } = event as { schemaVersion?: number };
    return { type: event.type, data: event.data, ...(schemaVersion !== undefined ? { schemaVersion } : {}) };
  });

/** One command as the steps below share it. */
type Command<State, E extends EvolvedEvent> = {
  store: EventStore;
  streamId: string;
  decider: CommandDecider<State, E>;
  decide: (state: State) => E[];
  metadata: AppendMetadata;
  commandId: string | undefined;
  snapshots: CommandSnapshots | undefined;
  memory: StreamMemory | undefined;
};

export type CommandOptions = {
  metadata: AppendMetadata;
  commandId?: string;
  retries?: number;
  /**
   * The caller expects the stream not to exist yet (a freshly generated id, a unique value that
   * is usually free): decide on the initial state and append expecting version 0, and load the
   * stream only when that guess was wrong. Saves a read on every create.
   */
  assumeNew?: boolean;
  snapshots?: CommandSnapshots;
  /** The process's memory of streams (stream-memory.ts): decide on it first, keep what is read and appended in it. */
  memory?: StreamMemory;
};

/**
 * Load → decide → append with the loaded version. A version conflict means another writer got in
 * between; the decision is re-made on the fresh state, a bounded number of times. A command whose
 * commandId already appears in the stream is not decided again: its earlier events are returned
 * with replayed: true (so a caller can still wait for their projections) and nothing is appended.
 *
 * Snapshots: when the decider has a `snapshot` codec and the caller passes `snapshots`, the state
 * is loaded from the stream's snapshot and only the events after it are read and folded; once
 * `every` events were appended past the snapshot (or past the start of a stream that has none),
 * a new one is saved after the append. The append still names the version the decision was made
 * on, so conflicts are detected exactly as without snapshots. A command with a commandId reads the
 * whole stream: its idempotency is answered from the events' metadata, which a snapshot does not keep.
 *
 * Memory: with a `memory` that knows the stream (as this decider folds it), the command is first
 * decided on what it remembers, with no read; that decision is kept only if its append at the
 * remembered version succeeds (decideOnMemory). A replay is answered from memory only by an entry
 * that saw the whole stream. Without a memory, or once it is found behind, the command runs as above.
 */
export async function handleCommand<State, E extends EvolvedEvent>(
  store: EventStore,
  streamId: string,
  decider: CommandDecider<State, E>,
  decide: (state: State) => E[],
  options: CommandOptions,
): Promise<CommandResult<State>> {
  const commandId = options.commandId ?? options.metadata.commandId;
  const snapshots = decider.snapshot && commandId === undefined ? options.snapshots : undefined;
  const { metadata, memory } = options;
  const command: Command<State, E> = { store, streamId, decider, decide, metadata, commandId, snapshots, memory };
  const remembered = memory?.recall<State>(streamId, decider, commandId !== undefined);
  if (memory && remembered) {
    const answer = await decideOnMemory(command, memory, remembered);
    if (answer) return answer;
  }
  const retries = Math.min(Math.max(0, options.retries ?? DEFAULT_RETRIES), MAX_RETRIES);
  // A stream this process remembers exists: no guess that it is new.
  return decideOnStore(command, retries, options.assumeNew === true && remembered === undefined);
}

/** The earlier events of this command when the stream records them (a replay), else undefined. */
const replayOf = <State>(known: KnownStream<State>, commandId: string | undefined): RecordedEvent[] | undefined => {
  if (commandId === undefined) return undefined;
  const earlier = (known.commanded ?? []).filter((event) => event.metadata.commandId === commandId);
  return earlier.length > 0 ? earlier : undefined;
};

/**
 * Decides on the remembered state and appends at the remembered version. Returns undefined, having
 * forgotten the entry, whenever the memory cannot be trusted: the decision refused (threw), found
 * nothing to do, or its append met a newer stream. The caller then reads and decides again. A
 * replay found in memory is true (streams only grow); one the memory lacks is found by that read.
 */
const decideOnMemory = async <State, E extends EvolvedEvent>(
  command: Command<State, E>,
  memory: StreamMemory,
  remembered: KnownStream<State>,
): Promise<CommandResult<State> | undefined> => {
  const stale = (): undefined => {
    memory.forget(command.streamId, remembered);
    memory.note('stale');
    return undefined;
  };
  const earlier = replayOf(remembered, command.commandId);
  if (earlier) {
    memory.remember(command.streamId, command.decider, remembered);
    memory.note('hit');
    return { state: remembered.state, events: earlier, version: remembered.version, replayed: true };
  }
  let decided: E[];
  try {
    decided = command.decide(remembered.state);
  } catch {
    // A refusal on remembered state may be a refusal of the past: only the stream's state may refuse.
    return stale();
  }
  if (decided.length === 0) return stale();
  let appended: Appended;
  try {
    appended = await append(command, decided, remembered.version);
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) return stale();
    memory.forget(command.streamId, remembered);
    throw error;
  }
  memory.note('hit');
  return afterAppend(command, remembered, appended);
};

/** Today's path: load (or guess new), decide, append; re-decide on a fresh load after a conflict, `retries` times. */
const decideOnStore = async <State, E extends EvolvedEvent>(
  command: Command<State, E>,
  retries: number,
  assumeNew: boolean,
): Promise<CommandResult<State>> => {
  const { store, streamId, decider, memory } = command;
  for (let attempt = 0; ; attempt += 1) {
    const guessed = assumeNew && attempt === 0;
    const loaded: KnownStream<State> = guessed
      ? { state: decider.initialState(), version: 0, commanded: [], snapshotVersion: 0 }
      : await loadState(store, streamId, decider, command.snapshots);
    // A guess is not knowledge; what was read is, whatever this command decides on it.
    if (!guessed) memory?.remember(streamId, decider, loaded);
    const earlier = replayOf(loaded, command.commandId);
    if (earlier) return { state: loaded.state, events: earlier, version: loaded.version, replayed: true };
    // Like a decision on memory, one on the guess is proven only by its append: a refusal or nothing to do is asked of the stream.
    const decided = guessed ? decideOnGuess(command, loaded.state) : command.decide(loaded.state);
    if (decided === undefined) continue;
    if (decided.length === 0) return { state: loaded.state, events: [], version: loaded.version, replayed: false };
    let appended: Appended;
    try {
      appended = await append(command, decided, loaded.version);
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error;
      // A wrong guess that the stream was new is not a collision with a concurrent writer: it spends no retry.
      if (guessed) continue;
      if (attempt >= retries) throw error;
      await backoff(attempt);
      continue;
    }
    return afterAppend(command, loaded, appended);
  }
};

/** The decision on the guessed initial state when it appends something; undefined (read the stream) when it refuses or does nothing. */
const decideOnGuess = <State, E extends EvolvedEvent>(command: Command<State, E>, guessed: State): E[] | undefined => {
  try {
    const decided = command.decide(guessed);
    return decided.length > 0 ? decided : undefined;
  } catch {
    return undefined;
  }
};

type Appended = { version: number; events: RecordedEvent[] };

const append = <State, E extends EvolvedEvent>(command: Command<State, E>, decided: E[], expectedVersion: number): Promise<Appended> =>
  command.store.appendToStream(command.streamId, toNewEvents(decided), {
    expectedVersion,
    metadata: { ...command.metadata, ...(command.commandId !== undefined ? { commandId: command.commandId } : {}) },
  });

/**
 * The state after a successful append, remembered at the appended version (with the commandIds
 * known when the state before was known whole), and a snapshot when one is due.
 */
const afterAppend = async <State, E extends EvolvedEvent>(
  command: Command<State, E>,
  before: KnownStream<State>,
  appended: Appended,
): Promise<CommandResult<State>> => {
  const { streamId, decider, snapshots } = command;
  const next = evolveAll(decider, before.state, appended.events);
  const known: KnownStream<State> = {
    state: next,
    version: appended.version,
    commanded: before.commanded && [...before.commanded, ...commandedOf(appended.events)],
    snapshotVersion: before.snapshotVersion,
  };
  command.memory?.remember(streamId, decider, known);
  const codec = decider.snapshot;
  if (snapshots && codec && snapshotDue(snapshots.every, before.snapshotVersion, appended.version)) {
    // Awaited so the command's caller (and a test) sees it taken, but a failure is only logged.
    const saved = await saveSnapshotQuietly(
      snapshots.store,
      { streamId, version: appended.version, deciderVersion: codec.deciderVersion, state: () => codec.serialize(next) },
      snapshots.logger,
    );
    // The next one is due `every` events after this one; after a failed save, at the next command.
    if (saved) known.snapshotVersion = appended.version;
  }
  return { state: next, events: appended.events, version: appended.version, replayed: false };
};
