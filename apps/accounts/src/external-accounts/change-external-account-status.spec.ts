// Pins down the external-account status transitions, including that verification, review and
// deactivation never apply to a deleted or foreign account.
import { deciderSpec } from '@corridor/testing';
import { changeExternalAccountStatus } from './change-external-account-status';
import { externalAccountDecider } from './external-account';
import { created, deleted, otherPlatformId, statusChanged, statusCommand } from './external-account.fixtures';

const { given } = deciderSpec({ decide: changeExternalAccountStatus, ...externalAccountDecider });

describe('ChangeExternalAccountStatus', () => {
  it('activates a pending account', () =>
    given([created()])
      .when(statusCommand('ACTIVE'))
      .then([statusChanged('PENDING', 'ACTIVE', 'OPERATOR')]));

  it('puts an active account under review and takes it out again', () => {
    given([created(), statusChanged('PENDING', 'ACTIVE')])
      .when(statusCommand('UNDER_REVIEW'))
      .then([statusChanged('ACTIVE', 'UNDER_REVIEW', 'OPERATOR')]);
    given([created(), statusChanged('PENDING', 'UNDER_REVIEW')])
      .when(statusCommand('ACTIVE'))
      .then([statusChanged('UNDER_REVIEW', 'ACTIVE', 'OPERATOR')]);
  });

  it('deactivates and reactivates', () => {
    given([created(), statusChanged('PENDING', 'ACTIVE')])
      .when(statusCommand('INACTIVE'))
      .then([statusChanged('ACTIVE', 'INACTIVE', 'OPERATOR')]);
    given([created(), statusChanged('PENDING', 'INACTIVE')])
      .when(statusCommand('ACTIVE'))
      .then([statusChanged('INACTIVE', 'ACTIVE', 'OPERATOR')]);
  });

  it('does nothing when the account already has the status', () =>
    given([created(), statusChanged('PENDING', 'ACTIVE')])
      .when(statusCommand('ACTIVE'))
      .thenNothingHappened());

  it('never returns an account to PENDING', () =>
    given([created(), statusChanged('PENDING', 'ACTIVE')])
      .when(statusCommand('PENDING'))
      .thenThrows((error) => error.code === 'INVALID_STATE_TRANSITION' && error.status === 409));

  it('answers 404 for a deleted account, an unknown one and another platform’s', () => {
    given([created(), deleted()])
      .when(statusCommand('ACTIVE'))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND' && error.status === 404);
    given([])
      .when(statusCommand('ACTIVE'))
      .thenThrows((error) => error.status === 404);
    given([created()])
      .when(statusCommand('ACTIVE', { platformId: otherPlatformId }))
      .thenThrows((error) => error.status === 404);
  });
});
