import { invalidInput } from '@corridor/contracts';
import type { RecordedEvent } from './types';

// Reads "as of" a past time (decisions 0037 and 0039): a resource as it stood at `at` is its
// stream's events that occurred at or before `at`, folded by the read model's own evolve, so a past
// answer and today's GET never disagree on shape or arithmetic.

/** The moment an `asOf` names; a string that is no time is a 400 naming the parameter, never a silent "now". */
export const asOfTime = (asOf: unknown): Date => {
  const at = typeof asOf === 'string' ? new Date(asOf) : new Date(Number.NaN);
  if (Number.isNaN(at.getTime()))
    throw invalidInput(`asOf must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z, got ${JSON.stringify(asOf)?.slice(0, 80)}.`, {
      field: 'asOf',
    });
  return at;
};

/** The view after every event that occurred at or before `at`, in stream order; null when none had (it did not exist yet). */
export const foldAsOf = <Row>(
  events: readonly RecordedEvent[],
  at: Date,
  evolve: (row: Row | null, event: RecordedEvent) => Row | null,
): Row | null =>
  events
    .filter((event) => Date.parse(event.metadata.occurredAt) <= at.getTime())
    .reduce<Row | null>((row, event) => evolve(row, event), null);
