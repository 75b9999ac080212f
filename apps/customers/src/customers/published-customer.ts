import type { CustomerWire } from '@corridor/contracts';
import type { RecordedEvent } from '@corridor/event-store';
import type { CustomerEvent } from './customer';
import { type CustomerRow, evolveCustomerView, renderCustomer } from './customer-view.projection';

/**
 * The read-model row right after one event, as a new customer's events store it in their
 * integration metadata (decision 0057). The row, not the rendered customer: the store keeps
 * metadata as jsonb, which reorders an object's keys, so the customer is rendered when the event is
 * published, by the same renderCustomer that renderAt uses, and its keys come out in GET's order.
 */
type PublishedRow = Omit<CustomerRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

/**
 * The events whose webhook shows the customer (CUSTOMER.KYC_* / KYB_*, the webhooks service's
 * customer-update kind). Only they carry it: every consumer of the others (accounts opens a new
 * customer's accounts from CustomerCreated) would only parse it, and a bulk import writes and
 * publishes thousands a second.
 */
const announcedWithCustomer: ReadonlySet<string> = new Set(['CustomerVerificationStatusChanged']);

/**
 * A new customer's events, each announced one with the row right after it: the read model's own
 * evolve folded from nothing, so the customer it renders is what renderAt answers for that event.
 * It needs no read because a new stream has no earlier events, and no date because the view takes
 * its dates from the events' data.
 */
export const withCustomerAfterEach = (
  events: readonly CustomerEvent[],
): (CustomerEvent & { integration?: { customer: PublishedRow } })[] => {
  let row: CustomerRow | null = null;
  return events.map((event) => {
    row = evolveCustomerView(row, event as unknown as RecordedEvent);
    return row && announcedWithCustomer.has(event.type) ? { ...event, integration: { customer: toPublishedRow(row) } } : event;
  });
};

const toPublishedRow = (row: CustomerRow): PublishedRow => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/**
 * The customer an event's integration event carries: the row its writer stored, rendered as
 * renderAt renders it. Null for an event recorded without one (every event after a customer's
 * creation, and any before decision 0057) and, as renderAt answers 404, for a row that is not the
 * event's own platform's customer.
 */
export const publishedCustomerOf = (event: RecordedEvent): CustomerWire | null => {
  const row = event.metadata.integration?.['customer'] as PublishedRow | undefined;
  if (typeof row !== 'object' || row === null) return null;
  if (row.id !== event.streamId || row.platformId !== event.metadata.platformId) return null;
  return renderCustomer({ ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) });
};
