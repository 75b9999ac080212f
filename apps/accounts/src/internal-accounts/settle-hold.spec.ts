// Pins down settling a reservation: the held money leaves, in full or for less with the rest released.
import { deciderSpec } from '@corridor/testing';
import { internalAccountDecider } from './internal-account';
import {
  credited,
  held,
  opened,
  otherPlatformId,
  released,
  settleCommand,
  settled,
  settledKeeping,
  statusChanged,
} from './internal-account.fixtures';
import { settleHold } from './settle-hold';

const { given } = deciderSpec({ decide: settleHold, ...internalAccountDecider });
const funded = [opened(), credited(), held()];

describe('SettleHold', () => {
  it('settles the whole hold', () => given(funded).when(settleCommand()).then([settled()]));

  it('settles for a smaller final amount and releases the rest', () =>
    given(funded)
      .when(settleCommand({ amount: 250n }))
      .then([settled('250', '50')]));

  it('settles part of the hold and keeps the rest reserved when asked to (a card’s partial clearing)', () =>
    given(funded)
      .when(settleCommand({ amount: 100n, keepRemainder: true }))
      .then([settledKeeping('100', '200')]));

  it('settles the kept remainder later under the same hold, and then the hold is closed', () =>
    given([...funded, settledKeeping('100', '200', 'op-partial-1')])
      .when(settleCommand({ amount: 200n, keepRemainder: true }))
      .then([settledKeeping('200', '0')]));

  it('refuses to settle more than what a partial settle left reserved', () =>
    given([...funded, settledKeeping('100', '200', 'op-partial-1')])
      .when(settleCommand({ amount: 201n, keepRemainder: true }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('does nothing when a partial settle that kept the rest is repeated', () =>
    given([...funded, settledKeeping('100', '200')])
      .when(settleCommand({ amount: 100n, keepRemainder: true }))
      .thenNothingHappened());

  it('refuses a keep-the-rest settle that does not name its amount', () =>
    given(funded)
      .when(settleCommand({ keepRemainder: true }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('settles on a frozen account, because the money was committed to the payment', () =>
    given([...funded, statusChanged('ACTIVE', 'FROZEN')])
      .when(settleCommand())
      .then([settled()]));

  it('does nothing when the same settle is repeated', () =>
    given([...funded, settled()])
      .when(settleCommand())
      .thenNothingHappened());

  it('treats a repeat that states the full amount as the same settle', () =>
    given([...funded, settled()])
      .when(settleCommand({ amount: 300n }))
      .thenNothingHappened());

  it('does nothing when a partial settle is repeated', () =>
    given([...funded, settled('250', '50')])
      .when(settleCommand({ amount: 250n }))
      .thenNothingHappened());

  it('refuses the same operation id with a different amount', () =>
    given([...funded, settled('250', '50')])
      .when(settleCommand({ amount: 200n }))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409));

  it('refuses more than the hold', () =>
    given(funded)
      .when(settleCommand({ amount: 301n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT' && error.status === 400));

  it('refuses a zero amount', () =>
    given(funded)
      .when(settleCommand({ amount: 0n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('refuses an unknown hold', () =>
    given([opened(), credited()])
      .when(settleCommand())
      .thenThrows((error) => error.code === 'HOLD_NOT_FOUND' && error.status === 404));

  it('refuses a hold that was already released', () =>
    given([...funded, released()])
      .when(settleCommand())
      .thenThrows((error) => error.code === 'HOLD_ALREADY_CLOSED' && error.status === 409));

  it('answers another platform as if the account did not exist', () =>
    given(funded)
      .when(settleCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));
});
