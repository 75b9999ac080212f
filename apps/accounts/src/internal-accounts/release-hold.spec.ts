// Pins down releasing a reservation: the held money returns to available, once.
import { deciderSpec } from '@corridor/testing';
import { internalAccountDecider } from './internal-account';
import { credited, held, opened, otherPlatformId, releaseCommand, released, settled, statusChanged } from './internal-account.fixtures';
import { releaseHold } from './release-hold';

const { given } = deciderSpec({ decide: releaseHold, ...internalAccountDecider });
const funded = [opened(), credited(), held()];

describe('ReleaseHold', () => {
  it('releases a hold', () => given(funded).when(releaseCommand()).then([released()]));

  it('releases on a frozen account, because the money stays in the account', () =>
    given([...funded, statusChanged('ACTIVE', 'FROZEN')])
      .when(releaseCommand())
      .then([released()]));

  it('does nothing when the same release is repeated', () =>
    given([...funded, released()])
      .when(releaseCommand())
      .thenNothingHappened());

  it('refuses the same operation id for another hold', () =>
    given([...funded, released()])
      .when(releaseCommand({ holdId: 'Hold:other' }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses an unknown hold', () =>
    given([opened(), credited()])
      .when(releaseCommand())
      .thenThrows((error) => error.code === 'HOLD_NOT_FOUND' && error.status === 404));

  it('refuses a hold that was already settled', () =>
    given([...funded, settled()])
      .when(releaseCommand())
      .thenThrows((error) => error.code === 'HOLD_ALREADY_CLOSED'));

  it('refuses an account that was never opened', () =>
    given([])
      .when(releaseCommand())
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));

  it('answers another platform as if the account did not exist', () =>
    given(funded)
      .when(releaseCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));
});
