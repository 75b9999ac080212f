import type { InternalAccountWire } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';
import { evolveInternalAccountView, type InternalAccountRow, renderInternalAccount } from './internal-account-view.projection';

/**
 * The read-model row right after one event, as the writer stores it in the event's integration
 * metadata (decision 0054): the row, not the rendered account, keeps the stored event small (the
 * funding instructions are derived from the id and currency) and leaves rendering to the same
 * renderInternalAccount that renderAt uses, whenever the event is published or republished.
 */
export type PublishedRow = Omit<InternalAccountRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

type Decided<Extra> = { type: string; data: Record<string, unknown> } & Extra;

/**
 * Each new event of one append with the row right after it: the read model's own evolve over the
 * row before the append, each event dated `occurredAt` (the date the append records), so the row
 * is what renderAt would fold from the stream up to that event.
 */
export const withRowAfterEach = <Extra>(
  before: InternalAccountRow | null,
  events: readonly Decided<Extra>[],
  occurredAt: string,
): (Decided<Extra> & { occurredAt: string; integration?: { account: PublishedRow } })[] => {
  let row = before;
  return events.map((event) => {
    row = evolveInternalAccountView(row, { type: event.type, data: event.data, metadata: { occurredAt } } as unknown as RecordedEvent);
    return { ...event, occurredAt, ...(row ? { integration: { account: toPublishedRow(row) } } : {}) };
  });
};

const toPublishedRow = (row: InternalAccountRow): PublishedRow => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * The account the event's integration event carries: the row its writer stored, rendered as
 * renderAt renders it. Null for an event recorded without one (before decision 0054) and, as
 * renderAt answers 404, for a row that is not the event's own platform's account.
 */
export const publishedAccountOf = (event: RecordedEvent): InternalAccountWire | null => {
  const row = event.metadata.integration?.['account'] as PublishedRow | undefined;
  if (typeof row !== 'object' || row === null) return null;
  if (row.id !== event.streamId || row.platformId !== event.metadata.platformId) return null;
  return renderInternalAccount({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) });
};
