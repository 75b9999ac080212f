import { type AppendMetadata, type EventStore, type RecordedEvent, WrongExpectedVersionError } from './types';

type EvolvedEvent = { type: string; data: Record<string, unknown> };

export type CommandResult<State> = { state: State; events: RecordedEvent[]; version: number; replayed: boolean };

const DEFAULT_RETRIES = 3;
const MAX_RETRIES = 10;
const BACKOFF_CAP_MS = 100;

/** A short, jittered pause so writers that just collided do not collide again in lockstep. */
const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(BACKOFF_CAP_MS, 5 * 2 ** attempt) * Math.random()));

/**
 * Load → decide → append with the loaded version. A version conflict means another writer got in
 * between; the decision is re-made on the fresh state, a bounded number of times. A command whose
 * commandId already appears in the stream is not decided again: its earlier events are returned
 * with replayed: true (so a caller can still wait for their projections) and nothing is appended.
 */
export async function handleCommand<State, E extends EvolvedEvent>(
  store: EventStore,
  streamId: string,
  decider: { evolve: (state: State, event: E) => State; initialState: () => State },
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
  },
): Promise<CommandResult<State>> {
  const retries = Math.min(Math.max(0, options.retries ?? DEFAULT_RETRIES), MAX_RETRIES);
  const commandId = options.commandId ?? options.metadata.commandId;
  const evolveAll = (state: State, events: RecordedEvent[]) =>
    events.reduce((current, event) => decider.evolve(current, event as unknown as E), state);
  for (let attempt = 0; ; attempt += 1) {
    const loaded = options.assumeNew && attempt === 0 ? { events: [], version: 0 } : await store.readStream(streamId);
    const state = evolveAll(decider.initialState(), loaded.events);
    if (commandId !== undefined) {
      const earlier = loaded.events.filter((event) => event.metadata.commandId === commandId);
      if (earlier.length > 0) return { state, events: earlier, version: loaded.version, replayed: true };
    }
    const decided = decide(state);
    if (decided.length === 0) return { state, events: [], version: loaded.version, replayed: false };
    try {
      const appended = await store.appendToStream(
        streamId,
        decided.map((event) => {
          const { schemaVersion } = event as { schemaVersion?: number };
          return { type: event.type, data: event.data, ...(schemaVersion !== undefined ? { schemaVersion } : {}) };
        }),
        {
          expectedVersion: loaded.version,
          metadata: { ...options.metadata, ...(commandId !== undefined ? { commandId } : {}) },
        },
      );
      return { state: evolveAll(state, appended.events), events: appended.events, version: appended.version, replayed: false };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= retries) throw error;
      // A wrong guess that the stream was new is not a collision with a concurrent writer.
      if (!(options.assumeNew && attempt === 0)) await backoff(attempt);
    }
  }
}
