// Pins down which changes a customer accepts, that a no-change update records nothing, and that
// another platform's or a deleted customer cannot be changed.
import { deciderSpec } from '@corridor/testing';
import { customerDecider } from './customer';
import { customerId, deleted, individualCreated, later, otherPlatformId, platformId, regulated, updateCommand } from './customer.fixtures';
import { updateCustomer } from './update-customer';
import { deleteCustomer } from './delete-customer';

const given = deciderSpec({ decide: updateCustomer, ...customerDecider }).given;
const givenDelete = deciderSpec({ decide: deleteCustomer, ...customerDecider }).given;
const deleteCommand = (onPlatform = platformId) => ({
  type: 'DeleteCustomer' as const,
  data: { customerId, platformId: onPlatform },
  metadata: { now: later },
});

describe('UpdateCustomer', () => {
  it('records the changed members only', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', email: 'alice@example.com', fullName: undefined }))
      .then([
        {
          type: 'CustomerUpdated',
          data: { customerId, platformId, changes: { email: 'alice@example.com' }, updatedAt: later.toISOString() },
        },
      ]));

  it('does nothing when nothing changes', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', fullName: 'Alice Doe' }))
      .thenNothingHappened());

  it('records a status stated by a regulated platform', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', kycStatus: 'REJECTED' }, { settings: regulated }))
      .then([
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'INDIVIDUAL', from: 'APPROVED', to: 'REJECTED', changedAt: later.toISOString() },
        },
      ]));

  it('refuses null members, which would erase required values', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', umaAddress: null as unknown as string }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && String(error.details?.['fields']) === 'umaAddress'));

  it('refuses to change the customer type', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'BUSINESS' }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'customerType'));

  it('answers USER_NOT_FOUND for another platform', () =>
    given([individualCreated()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', email: 'x@example.com' }, { platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'USER_NOT_FOUND' && error.status === 404));

  it('answers CUSTOMER_DELETED (410) for a deleted customer', () =>
    given([individualCreated(), deleted()])
      .when(updateCommand({ customerType: 'INDIVIDUAL', email: 'x@example.com' }))
      .thenThrows((error) => error.code === 'CUSTOMER_DELETED' && error.status === 410));
});

describe('DeleteCustomer', () => {
  it('soft-deletes a live customer', () =>
    givenDelete([individualCreated()])
      .when(deleteCommand())
      .then([{ type: 'CustomerDeleted', data: { customerId, platformId, deletedAt: later.toISOString() } }]));

  it('answers 410 when deleting twice', () =>
    givenDelete([individualCreated(), deleted()])
      .when(deleteCommand())
      .thenThrows((error) => error.code === 'CUSTOMER_DELETED'));

  it('answers 404 for another platform', () =>
    givenDelete([individualCreated()])
      .when(deleteCommand(otherPlatformId))
      .thenThrows((error) => error.code === 'USER_NOT_FOUND'));

  it('answers 404 for a customer that never existed', () =>
    givenDelete([])
      .when(deleteCommand())
      .thenThrows((error) => error.code === 'USER_NOT_FOUND'));
});
