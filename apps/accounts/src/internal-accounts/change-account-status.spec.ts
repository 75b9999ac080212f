// Pins down freezing, unfreezing, activating and closing, and that a closed account stays closed.
import { deciderSpec } from '@corridor/testing';
import { changeAccountStatus } from './change-account-status';
import { internalAccountDecider } from './internal-account';
import { credited, debited, held, opened, otherPlatformId, released, statusChanged, statusCommand } from './internal-account.fixtures';

const { given } = deciderSpec({ decide: changeAccountStatus, ...internalAccountDecider });

describe('ChangeAccountStatus', () => {
  it('freezes an active account', () =>
    given([opened()])
      .when(statusCommand('FROZEN'))
      .then([statusChanged('ACTIVE', 'FROZEN')]));

  it('unfreezes a frozen account', () =>
    given([opened(), statusChanged('ACTIVE', 'FROZEN')])
      .when(statusCommand('ACTIVE'))
      .then([statusChanged('FROZEN', 'ACTIVE')]));

  it('activates a pending account', () =>
    given([opened('PENDING')])
      .when(statusCommand('ACTIVE'))
      .then([statusChanged('PENDING', 'ACTIVE')]));

  it('closes an empty account', () =>
    given([opened()])
      .when(statusCommand('CLOSED'))
      .then([statusChanged('ACTIVE', 'CLOSED')]));

  it('closes an account emptied by a debit and a released hold', () =>
    given([opened(), credited('700'), held('300'), released('300'), debited('700')])
      .when(statusCommand('CLOSED'))
      .then([statusChanged('ACTIVE', 'CLOSED')]));

  it('does nothing when the same change is repeated', () =>
    given([opened(), statusChanged('ACTIVE', 'FROZEN')])
      .when(statusCommand('FROZEN'))
      .thenNothingHappened());

  it('does nothing when the account already has the status', () =>
    given([opened(), statusChanged('ACTIVE', 'FROZEN')])
      .when(statusCommand('FROZEN', { operationId: 'op-freeze-again' }))
      .thenNothingHappened());

  it('does nothing when a close is repeated on the closed account', () =>
    given([opened(), statusChanged('ACTIVE', 'CLOSED')])
      .when(statusCommand('CLOSED'))
      .thenNothingHappened());

  it('refuses the same operation id with a different status', () =>
    given([opened(), statusChanged('ACTIVE', 'FROZEN')])
      .when(statusCommand('CLOSED', { operationId: 'op-frozen' }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses to close an account with available funds', () =>
    given([opened(), credited()])
      .when(statusCommand('CLOSED'))
      .thenThrows((error) => error.code === 'ACCOUNT_NOT_EMPTY' && error.status === 409 && error.details?.['available'] === '1000'));

  it('refuses to close an account with held funds', () =>
    given([opened(), credited('300'), held('300')])
      .when(statusCommand('CLOSED'))
      .thenThrows((error) => error.code === 'ACCOUNT_NOT_EMPTY' && error.details?.['held'] === '300'));

  it('refuses to reopen a closed account', () =>
    given([opened(), statusChanged('ACTIVE', 'CLOSED')])
      .when(statusCommand('ACTIVE'))
      .thenThrows((error) => error.code === 'ACCOUNT_CLOSED'));

  it('answers another platform as if the account did not exist', () =>
    given([opened()])
      .when(statusCommand('FROZEN', { platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));
});
