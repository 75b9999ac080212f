import type { Logger } from './logger';
import { saveSnapshotQuietly, snapshotDue, type SnapshotCodec, type SnapshotStore } from './snapshot-store';
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

type Loaded<State> = { state: State; events: RecordedEvent[]; version: number; snapshotVersion: number };

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
): Promise<Loaded<State>> => {
  const codec = decider.snapshot;
  const snapshot = snapshots && codec ? await snapshots.store.load(streamId, codec.deciderVersion) : null;
  if (snapshot && codec) {
    const tail = await store.readStream(streamId, { fromPosition: snapshot.version + 1 });
    // A snapshot ahead of its stream (the events were removed, a restored backup) is not trusted.
    if (tail.version >= snapshot.version) {
      return {
        state: evolveAll(decider, codec.deserialize(snapshot.state), tail.events),
        events: tail.events,
        version: tail.version,
        snapshotVersion: snapshot.version,
      };
    }
  }
  const full = await store.readStream(streamId);
  return { state: evolveAll(decider, decider.initialState(), full.events), events: full.events, version: full.version, snapshotVersion: 0 };
};

/** The decided events as the store takes them: type, data and the schema version when the event names one. */
export const toNewEvents = (decided: readonly EvolvedEvent[]): NewEvent[] =>
  decided.map((event) => {
    const { schemaVersion } = event as { schemaVersion?: number };
    return { type: event.type, data: event.data, ...(schemaVersion !== undefined ? { schemaVersion } : {}) };
  });

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
 */
export async function handleCommand<State, E extends EvolvedEvent>(
  store: EventStore,
  streamId: string,
  decider: CommandDecider<State, E>,
  decide: (state: State) => E[],
  options: {
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
  },
): Promise<CommandResult<State>> {
  const retries = Math.min(Math.max(0, options.retries ?? DEFAULT_RETRIES), MAX_RETRIES);
  const commandId = options.commandId ?? options.metadata.commandId;
  const codec = decider.snapshot;
  const snapshots = codec && commandId === undefined ? options.snapshots : undefined;

  for (let attempt = 0; ; attempt += 1) {
    const loaded: Loaded<State> =
      options.assumeNew && attempt === 0
        ? { state: decider.initialState(), events: [], version: 0, snapshotVersion: 0 }
        : await loadState(store, streamId, decider, snapshots);
    const { state } = loaded;
    if (commandId !== undefined) {
      const earlier = loaded.events.filter((event) => event.metadata.commandId === commandId);
      if (earlier.length > 0) return { state, events: earlier, version: loaded.version, replayed: true };
    }
    const decided = decide(state);
    if (decided.length === 0) return { state, events: [], version: loaded.version, replayed: false };
    let appended: { version: number; events: RecordedEvent[] };
    try {
      appended = await store.appendToStream(streamId, toNewEvents(decided), {
        expectedVersion: loaded.version,
        metadata: { ...options.metadata, ...(commandId !== undefined ? { commandId } : {}) },
      });
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= retries) throw error;
      // A wrong guess that the stream was new is not a collision with a concurrent writer.
      if (!(options.assumeNew && attempt === 0)) await backoff(attempt);
      continue;
    }
    const next = evolveAll(decider, state, appended.events);
    if (snapshots && codec && snapshotDue(snapshots.every, loaded.snapshotVersion, appended.version)) {
      // Awaited so the command's caller (and a test) sees it taken, but a failure is only logged.
      await saveSnapshotQuietly(
        snapshots.store,
        { streamId, version: appended.version, deciderVersion: codec.deciderVersion, state: () => codec.serialize(next) },
        snapshots.logger,
      );
    }
    return { state: next, events: appended.events, version: appended.version, replayed: false };
  }
}
