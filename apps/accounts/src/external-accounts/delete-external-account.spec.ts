// Pins down soft deletion: once deleted an account answers 404, and each route family deletes only its own kind.
import { deciderSpec } from '@corridor/testing';
import { deleteExternalAccount } from './delete-external-account';
import { externalAccountDecider } from './external-account';
import { created, deleteCommand, deleted, otherPlatformId, statusChanged } from './external-account.fixtures';

const { given } = deciderSpec({ decide: deleteExternalAccount, ...externalAccountDecider });

describe('DeleteExternalAccount', () => {
  it('deletes a customer’s account through the customer routes', () =>
    given([created(), statusChanged('PENDING', 'ACTIVE')])
      .when(deleteCommand())
      .then([deleted()]));

  it('deletes a platform account through the platform routes', () =>
    given([created({ customerId: null })])
      .when(deleteCommand({ owner: 'PLATFORM' }))
      .then([deleted()]));

  it('answers 404 to a second delete', () =>
    given([created(), deleted()])
      .when(deleteCommand())
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND' && error.status === 404));

  it('answers 404 when the route family does not own the account', () => {
    given([created()])
      .when(deleteCommand({ owner: 'PLATFORM' }))
      .thenThrows((error) => error.status === 404);
    given([created({ customerId: null })])
      .when(deleteCommand({ owner: 'CUSTOMER' }))
      .thenThrows((error) => error.status === 404);
  });

  it('answers 404 for another platform’s account and an unknown one', () => {
    given([created()])
      .when(deleteCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.status === 404);
    given([])
      .when(deleteCommand())
      .thenThrows((error) => error.status === 404);
  });
});
