// Pins down the customer read model's pure evolve: what each event does to the row, and that a
// surprising event is skipped or clamped instead of failing the batch.
import type { RecordedEvent } from '@corridor/event-store';
import { customerId, deleted, individualCreated, platformId } from './customer.fixtures';
import type { CustomerEvent } from './customer';
import { evolveCustomerView, renderCustomer } from './customer-view.projection';

let position = 0n;
const recorded = (event: CustomerEvent): RecordedEvent =>
  ({
    ...event,
    eventId: `e${++position}`,
    streamId: customerId,
    streamPosition: Number(position),
    globalPosition: position,
    metadata: {},
  }) as unknown as RecordedEvent;
const fold = (...events: CustomerEvent[]) => events.map(recorded).reduce(evolveCustomerView, null);
const updated = (changes: Record<string, unknown>): CustomerEvent =>
  ({ type: 'CustomerUpdated', data: { customerId, platformId, changes, updatedAt: '2026-03-02T00:00:00.000Z' } }) as CustomerEvent;

describe('customer view', () => {
  it('renders a created individual as the reference Customer', () => {
    expect(renderCustomer(fold(individualCreated())!)).toEqual({
      id: customerId,
      platformCustomerId: 'pc-1',
      customerType: 'INDIVIDUAL',
      umaAddress: '$alice@acme.sandbox.uma.money',
      region: 'US',
      currencies: ['USD'],
      kycStatus: 'APPROVED',
      fullName: 'Alice Doe',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
      isDeleted: false,
    });
  });

  it('applies updates to the profile and the filter columns', () => {
    const row = fold(individualCreated(), updated({ umaAddress: '$new@acme.sandbox.uma.money', currencies: ['USD', 'EUR'] }))!;
    expect(row).toMatchObject({
      umaAddress: '$new@acme.sandbox.uma.money',
      currencies: ['USD', 'EUR'],
      updatedAt: new Date('2026-03-02T00:00:00.000Z'),
    });
  });

  it('marks a deleted customer without dropping the row', () => {
    expect(fold(individualCreated(), deleted())).toMatchObject({ id: customerId, isDeleted: true });
  });

  it('skips an update for a row it never saw', () => {
    expect(fold(updated({ email: 'x@example.com' }))).toBeNull();
  });

  it('keeps required columns when a recorded update carries null', () => {
    expect(fold(individualCreated(), updated({ umaAddress: null, currencies: null }))).toMatchObject({
      umaAddress: '$alice@acme.sandbox.uma.money',
      currencies: ['USD'],
    });
  });
});
