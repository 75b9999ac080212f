import { type EventStore, type NewEvent, type RecordedEvent, WrongExpectedVersionError } from './types';

/**
 * Copies one service's events from one store to another through the port (`npm run
 * eventstore:copy`, docs/decisions/0036), in the source's global order, each stream at the exact
 * version it had, so a second run after a crash resumes where the first stopped and never writes
 * an event twice. Events go as stored (the source store is opened without upcasters).
 *
 * Global positions differ between stores, so the positions of the service's checkpoints (read
 * models, outbox) are translated as the copy passes them: checkpoint p becomes the target position
 * of the last event at or before p, and no copied append straddles a checkpoint.
 */
export type CopyEventsOptions = {
  source: EventStore;
  target: EventStore;
  /** Source positions to translate (the service's checkpoints). */
  checkpoints?: readonly bigint[];
  /** Source events read per batch. */
  batchSize?: number;
  onProgress?: (progress: { position: bigint; copied: number; skipped: number }) => void;
};

export type CopyEventsResult = {
  copied: number;
  /** Already in the target from an earlier run. */
  skipped: number;
  /** Source position -> target position, for every checkpoint asked for. */
  translated: Map<bigint, bigint>;
  sourceHead: bigint;
};

const DEFAULT_BATCH = 1_000;

/** Consecutive events of one stream that lie between the same two checkpoints: one append each. Pure. */
export const copyGroups = (events: readonly RecordedEvent[], checkpoints: readonly bigint[]): RecordedEvent[][] => {
  const sorted = [...checkpoints].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const groups: RecordedEvent[][] = [];
  let current: RecordedEvent[] = [];
  for (const event of events) {
    const previous = current[current.length - 1];
    const crossesCheckpoint =
      previous !== undefined && sorted.some((checkpoint) => checkpoint >= previous.globalPosition && checkpoint < event.globalPosition);
    if (previous && (previous.streamId !== event.streamId || crossesCheckpoint)) {
      groups.push(current);
      current = [];
    }
    current.push(event);
  }
  if (current.length > 0) groups.push(current);
  return groups;
};

const asNewEvent = ({ type, data, metadata }: RecordedEvent): NewEvent => {
  const { schemaVersion, ...appendMetadata } = metadata;
  return { type, data, schemaVersion, metadata: appendMetadata };
};

/** Appends one group at the version the source had; what an earlier run wrote is read back, not written again. */
const copyGroup = async (target: EventStore, group: RecordedEvent[]): Promise<{ recorded: RecordedEvent[]; copied: number }> => {
  const first = group[0]!;
  const expectedVersion = first.streamPosition - 1;
  const metadata = asNewEvent(first).metadata!;
  const append = (events: RecordedEvent[], at: number) =>
    target.appendToStream(first.streamId, events.map(asNewEvent), { expectedVersion: at, metadata });
  try {
    return { recorded: (await append(group, expectedVersion)).events, copied: group.length };
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError) || error.actual === undefined || error.actual < expectedVersion) {
      const why = `the target stream is not where the source was (${String(error)})`;
      throw new Error(`Copying ${first.streamId} at version ${expectedVersion}: ${why}.`, { cause: error });
    }
    const lastPosition = first.streamPosition + group.length - 1;
    const { events: there } = await target.readStream(first.streamId, { fromPosition: first.streamPosition });
    const present = there.filter((event) => event.streamPosition <= lastPosition);
    // Already there means the same events: a target written by something else is not silently kept.
    const same = (event: RecordedEvent, index: number) =>
      event.type === group[index]!.type && JSON.stringify(event.data) === JSON.stringify(group[index]!.data);
    const differs = present.find((event, index) => !same(event, index));
    if (differs) {
      const where = `version ${differs.streamPosition} (${differs.type})`;
      throw new Error(`Copying ${first.streamId}: the target already holds a different event at ${where}.`);
    }
    const rest = group.slice(present.length);
    if (rest.length === 0) return { recorded: present, copied: 0 };
    return { recorded: [...present, ...(await append(rest, error.actual)).events], copied: rest.length };
  }
};

export const copyEvents = async (options: CopyEventsOptions): Promise<CopyEventsResult> => {
  const { source, target, checkpoints = [], batchSize = DEFAULT_BATCH } = options;
  const pending = [...new Set(checkpoints)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // A checkpoint before every event stays where it is: nothing was read before it in either store.
  const translated = new Map<bigint, bigint>(pending.map((checkpoint) => [checkpoint, 0n]));
  const sourceHead = await source.headPosition();
  let cursor = 0n;
  let copied = 0;
  let skipped = 0;
  for (;;) {
    const batch = await source.readAll({ after: cursor, limit: batchSize });
    if (batch.length === 0) break;
    for (const group of copyGroups(batch, pending)) {
      const done = await copyGroup(target, group);
      copied += done.copied;
      skipped += group.length - done.copied;
      const last = group[group.length - 1]!;
      const landed = done.recorded[done.recorded.length - 1]!.globalPosition;
      for (const checkpoint of pending) if (checkpoint >= last.globalPosition) translated.set(checkpoint, landed);
    }
    cursor = batch[batch.length - 1]!.globalPosition;
    options.onProgress?.({ position: cursor, copied, skipped });
  }
  return { copied, skipped, translated, sourceHead };
};
