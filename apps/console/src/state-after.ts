import type { ServiceInfo } from '../../../scripts/services';
import type { TracedEvent } from '../../../scripts/trace/trace-reader';

// Pure: the state of each stream after each of its events, folded with the stream's own decider,
// so an operator sees what an event changed and not only what it said.

/** A stream's decider as scripts/services lists it (its evolve and initial state). */
export type Decider = ServiceInfo['streams'][string];

/** What the console shows under an event: the folded state, or why there is none. */
export type StateAfter = { state: unknown } | { unavailable: string };

/** A stream longer than this is not folded per request (a busy account has years of events). */
export const MAX_FOLDED_EVENTS = 2_000;

/** The stream's type is the part of its id before the colon (Transaction:…, InternalAccount:…). */
export const streamType = (streamId: string): string => streamId.split(':')[0] ?? '';

/** The shape the deciders' evolve reads (the store's RecordedEvent), rebuilt from a traced event. */
const asRecorded = (event: TracedEvent) => ({
  eventId: event.eventId,
  streamId: event.streamId,
  streamPosition: event.position,
  globalPosition: BigInt(event.globalPosition),
  type: event.type,
  data: event.data,
  metadata: {
    occurredAt: event.occurredAt,
    platformId: event.platformId,
    correlationId: event.correlationId,
    causationId: event.causationId,
    requestId: event.requestId,
  },
});

/**
 * Folds one stream's full history (positions 1..n, in order) and returns the state after each
 * position. A gap in positions or an event the decider cannot apply stops the fold there: the
 * states after it would be wrong, so they are reported unavailable with the reason.
 */
export const foldStream = (history: TracedEvent[], decider: Decider | undefined): Map<number, StateAfter> => {
  const after = new Map<number, StateAfter>();
  const ordered = [...history].sort((left, right) => left.position - right.position);
  const stop = (from: number, why: string) => {
    for (const event of ordered) if (event.position >= from) after.set(event.position, { unavailable: why });
    return after;
  };
  if (!decider) return stop(0, `no decider is known for ${streamType(ordered[0]?.streamId ?? '')} streams`);
  if (ordered.length > MAX_FOLDED_EVENTS) return stop(0, `the stream has ${ordered.length} events; fold it with npm run replay`);
  let state = decider.initialState();
  for (const [index, event] of ordered.entries()) {
    if (event.position !== index + 1) return stop(event.position, `the stream's events before #${event.position} were not all read`);
    try {
      state = decider.evolve(state, asRecorded(event));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return stop(event.position, `the decider could not apply #${event.position}: ${why}`);
    }
    after.set(event.position, { state });
  }
  return after;
};
