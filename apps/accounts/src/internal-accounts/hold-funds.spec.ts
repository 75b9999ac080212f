// Pins down reserving funds for a payment: from available only, once per operation, one id per hold.
import { deciderSpec } from '@corridor/testing';
import { holdFunds } from './hold-funds';
import { internalAccountDecider } from './internal-account';
import { credited, held, holdCommand, opened, otherPlatformId, released, statusChanged } from './internal-account.fixtures';

const { given } = deciderSpec({ decide: holdFunds, ...internalAccountDecider });

describe('HoldFunds', () => {
  it('holds available funds', () => given([opened(), credited()]).when(holdCommand()).then([held()]));

  it('holds exactly the remaining funds', () =>
    given([opened(), credited(), held('700', 'op-first', 'Hold:first')])
      .when(holdCommand())
      .then([held()]));

  it('refuses the second of two holds on the last funds', () =>
    given([opened(), credited(), held('1000', 'op-first', 'Hold:first')])
      .when(holdCommand({ amount: 1n }))
      .thenThrows((error) => error.code === 'INSUFFICIENT_FUNDS' && error.status === 400 && error.details?.['available'] === '0'));

  it('does nothing when the same operation is repeated', () =>
    given([opened(), credited(), held()]).when(holdCommand()).thenNothingHappened());

  it('refuses the same operation id with a different amount', () =>
    given([opened(), credited(), held()])
      .when(holdCommand({ amount: 301n }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses to reuse a hold id for a new operation', () =>
    given([opened(), credited(), held()])
      .when(holdCommand({ operationId: 'op-again' }))
      .thenThrows((error) => error.code === 'HOLD_EXISTS' && error.status === 409));

  it('refuses to reuse the id of a hold that was released', () =>
    given([opened(), credited(), held(), released()])
      .when(holdCommand({ operationId: 'op-again' }))
      .thenThrows((error) => error.code === 'HOLD_EXISTS'));

  it('refuses a frozen account', () =>
    given([opened(), credited(), statusChanged('ACTIVE', 'FROZEN')])
      .when(holdCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_FROZEN'));

  it('refuses a closed account', () =>
    given([opened(), statusChanged('ACTIVE', 'CLOSED')])
      .when(holdCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_CLOSED'));

  it('refuses a currency other than the account’s', () =>
    given([opened(), credited()])
      .when(holdCommand({ currency: 'EUR' }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY'));

  it('refuses a non-positive amount', () =>
    given([opened(), credited()])
      .when(holdCommand({ amount: -1n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('answers another platform as if the account did not exist', () =>
    given([opened(), credited()])
      .when(holdCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));
});
