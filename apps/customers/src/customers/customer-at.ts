import type { CustomerWire } from '@corridor/contracts';
import { foldAsOf, type RecordedEvent } from '@corridor/event-store';
import { type CustomerRow, evolveCustomerView, renderCustomer } from './customer-view.projection';

/**
 * The customer exactly as GET would have shown it right after the event at `streamPosition`: the
 * read model's own evolve folded over the stream up to and including that event, then its
 * renderer, so a webhook's `data` and a GET never disagree on shape. Null when the stream has no
 * event at that position or the customer is not the platform's.
 */
export const renderCustomerAt = (events: readonly RecordedEvent[], streamPosition: number, platformId: string): CustomerWire | null => {
  if (!events.some((event) => event.streamPosition === streamPosition)) return null;
  const row = events
    .filter((event) => event.streamPosition <= streamPosition)
    .reduce<CustomerRow | null>((state, event) => evolveCustomerView(state, event), null);
  return row && row.platformId === platformId ? renderCustomer(row) : null;
};

/**
 * GET /customers/{id}?asOf= (decision 0039): the customer as GET showed it at `at`, its stream's
 * events that occurred by then folded by the read model's evolve. Null before it was created or
 * when it is another platform's: both answer like an unknown id.
 */
export const renderCustomerAsOf = (events: readonly RecordedEvent[], at: Date, platformId: string): CustomerWire | null => {
  const row = foldAsOf<CustomerRow>(events, at, evolveCustomerView);
  return row && row.platformId === platformId ? renderCustomer(row) : null;
};
