// Pins down the customer a webhook carries: the state right after the announced event, not now.
import type { RecordedEvent } from '@corridor/event-store';
import { recordedEvents } from '@corridor/testing';
import { renderCustomerAsOf, renderCustomerAt } from './customer-at';
import { createdAt, customerId, individualCreated, otherPlatformId, platformId } from './customer.fixtures';
import type { CustomerEvent } from './customer';

const recorded = (events: CustomerEvent[]): RecordedEvent[] =>
  events.map((event, index) => ({
    eventId: `e${index + 1}`,
    streamId: customerId,
    streamPosition: index + 1,
    globalPosition: BigInt(index + 1),
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: {
      platformId,
      correlationId: 'c',
      requestId: 'r',
      actor: { kind: 'system', name: 'test' },
      occurredAt: createdAt,
      schemaVersion: 1,
    },
  }));

const pendingThenRejected = (): CustomerEvent[] => [
  individualCreated(),
  {
    type: 'CustomerVerificationStatusChanged',
    data: { customerId, platformId, customerType: 'INDIVIDUAL', from: 'APPROVED', to: 'PENDING', changedAt: '2026-03-02T00:00:00.000Z' },
  },
  {
    type: 'CustomerVerificationStatusChanged',
    data: { customerId, platformId, customerType: 'INDIVIDUAL', from: 'PENDING', to: 'REJECTED', changedAt: '2026-03-03T00:00:00.000Z' },
  },
];

describe('renderCustomerAt', () => {
  it('renders the customer as it was right after the event at that position, ignoring later events', () => {
    const customer = renderCustomerAt(recorded(pendingThenRejected()), 2, platformId);
    expect(customer).toMatchObject({ id: customerId, kycStatus: 'PENDING', updatedAt: '2026-03-02T00:00:00.000Z' });
  });

  it('renders the latest state at the last position', () => {
    expect(renderCustomerAt(recorded(pendingThenRejected()), 3, platformId)).toMatchObject({ kycStatus: 'REJECTED' });
  });

  it('refuses a position the stream does not have', () => {
    expect(renderCustomerAt(recorded(pendingThenRejected()), 4, platformId)).toBeNull();
  });

  it("refuses another platform's customer", () => {
    expect(renderCustomerAt(recorded(pendingThenRejected()), 1, otherPlatformId)).toBeNull();
  });
});

describe('renderCustomerAsOf', () => {
  const renamed: CustomerEvent = {
    type: 'CustomerUpdated',
    data: { customerId, platformId, changes: { fullName: 'Alice Smith' }, updatedAt: '2026-03-01T12:00:00.000Z' },
  };
  const stream = recordedEvents(customerId, platformId, [individualCreated(), renamed], [createdAt, '2026-03-01T12:00:00.000Z']);
  const at = (iso: string, platform = platformId) => renderCustomerAsOf(stream, new Date(iso), platform);

  it('given a customer renamed later, answers the old name until the update occurred and the new one from it', () => {
    expect(at('2026-03-01T11:59:59.999Z')).toMatchObject({ id: customerId, fullName: 'Alice Doe', updatedAt: createdAt });
    expect(at('2026-03-01T12:00:00.000Z')).toMatchObject({ fullName: 'Alice Smith', updatedAt: '2026-03-01T12:00:00.000Z' });
  });

  it('answers nothing before the customer was created, or for another platform', () => {
    expect(at('2026-03-01T09:59:59.999Z')).toBeNull();
    expect(at('2026-03-01T11:00:00.000Z', otherPlatformId)).toBeNull();
  });
});
