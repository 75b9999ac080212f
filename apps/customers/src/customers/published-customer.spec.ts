// Pins down the customer a new customer's announced event publishes for its webhook (decision
// 0057): the same bytes renderAt answers for it, and nothing a webhook could take for another's.
import type { RecordedEvent } from '@corridor/event-store';
import { recordedEvents } from '@corridor/testing';
import { renderCustomerAt } from './customer-at';
import { createCustomer } from './create-customer';
import { customerDecider } from './customer';
import { createCommand, createdAt, customerId, otherPlatformId, platformId } from './customer.fixtures';
import { publishedCustomerOf, withCustomerAfterEach } from './published-customer';

/** The events as the store records them: each with the integration metadata it was appended with. */
const recordedWith = (events: ReturnType<typeof withCustomerAfterEach>, owner = platformId): RecordedEvent[] =>
  recordedEvents(
    customerId,
    owner,
    events,
    events.map(() => createdAt),
  ).map((event, index) => {
    const integration = events[index]!.integration;
    return integration ? { ...event, metadata: { ...event.metadata, integration } } : event;
  });

const sandboxIndividual = () =>
  createCustomer(
    createCommand({ customerType: 'INDIVIDUAL', region: 'US', fullName: 'Alice Doe', email: 'alice@example.com' }),
    customerDecider.initialState(),
  );

describe('withCustomerAfterEach and publishedCustomerOf', () => {
  it('given a new sandbox individual (created, then APPROVED), the APPROVED change publishes what renderAt answers for it', () => {
    const recorded = recordedWith(withCustomerAfterEach(sandboxIndividual()));
    expect(recorded.map((event) => event.type)).toEqual(['CustomerCreated', 'CustomerVerificationStatusChanged']);
    const approved = recorded[1]!;
    expect(JSON.stringify(publishedCustomerOf(approved))).toBe(JSON.stringify(renderCustomerAt(recorded, 2, platformId)));
    expect(publishedCustomerOf(approved)).toMatchObject({ id: customerId, kycStatus: 'APPROVED', email: 'alice@example.com' });
  });

  it('given the CustomerCreated, which announces no webhook, it carries no customer for its many consumers to parse', () => {
    expect(publishedCustomerOf(recordedWith(withCustomerAfterEach(sandboxIndividual()))[0]!)).toBeNull();
  });

  it('given an event recorded without a customer (a later change, or before decision 0057), publishes none', () => {
    const recorded = recordedEvents(customerId, platformId, sandboxIndividual(), [createdAt, createdAt]);
    expect(recorded.map(publishedCustomerOf)).toEqual([null, null]);
  });

  it("given an event recorded in another platform's context than the customer's, publishes none (renderAt answers 404)", () => {
    const recorded = recordedWith(withCustomerAfterEach(sandboxIndividual()), otherPlatformId);
    expect(publishedCustomerOf(recorded[1]!)).toBeNull();
  });

  it("given a customer stored on another stream's event, publishes none", () => {
    const approved = recordedWith(withCustomerAfterEach(sandboxIndividual()))[1]!;
    expect(publishedCustomerOf(approved)).not.toBeNull();
    expect(publishedCustomerOf({ ...approved, streamId: 'Customer:0196f1a0-0000-7000-8000-000000000002' })).toBeNull();
  });
});
