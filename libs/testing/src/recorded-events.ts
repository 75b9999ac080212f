import type { RecordedEvent } from '@corridor/event-store';

/**
 * Decided events as the store hands them back: one stream, positions from 1, each stamped with
 * the time it occurred (`occurredAt[i]`), for specs of folds over a stream's history (as-of reads).
 */
export const recordedEvents = (
  streamId: string,
  platformId: string,
  events: readonly { type: string; data: object }[],
  occurredAt: readonly string[],
): RecordedEvent[] =>
  events.map((event, index) => {
    const at = occurredAt[index];
    if (at === undefined) throw new Error(`recordedEvents: event ${index + 1} (${event.type}) has no occurredAt.`);
    return {
      eventId: `00000000-0000-7000-8000-${String(index + 1).padStart(12, '0')}`,
      streamId,
      streamPosition: index + 1,
      globalPosition: BigInt(index + 1),
      type: event.type,
      data: { ...event.data } as Record<string, unknown>,
      metadata: {
        platformId,
        correlationId: 'c',
        requestId: 'r',
        actor: { kind: 'system', name: 'test' },
        occurredAt: at,
        schemaVersion: 1,
      },
    };
  });
