// Pins down when money may leave an account directly: only from an active account, never below zero.
import { deciderSpec } from '@corridor/testing';
import { debitAccount } from './debit-account';
import { internalAccountDecider, systemAccountId } from './internal-account';
import { credited, debitCommand, debited, held, opened, otherPlatformId, statusChanged } from './internal-account.fixtures';

const { given } = deciderSpec({ decide: debitAccount, ...internalAccountDecider });

describe('DebitAccount', () => {
  it('debits available funds', () => given([opened(), credited()]).when(debitCommand()).then([debited()]));

  it('debits the whole available balance down to zero', () =>
    given([opened(), credited()])
      .when(debitCommand({ amount: 1000n }))
      .then([debited('1000')]));

  it('refuses one minor unit beyond the available balance, naming both amounts', () =>
    given([opened(), credited()])
      .when(debitCommand({ amount: 1001n }))
      .thenThrows(
        (error) =>
          error.code === 'INSUFFICIENT_FUNDS' &&
          error.status === 400 &&
          error.message.includes('1000') &&
          error.message.includes('1001') &&
          error.details?.['available'] === '1000' &&
          error.details['requested'] === '1001',
      ));

  it('does not spend held funds', () =>
    given([opened(), credited(), held('800')])
      .when(debitCommand({ amount: 201n }))
      .thenThrows((error) => error.code === 'INSUFFICIENT_FUNDS'));

  it('does nothing when the same operation is repeated, even though the funds are now gone', () =>
    given([opened(), credited(), debited('1000')])
      .when(debitCommand({ amount: 1000n }))
      .thenNothingHappened());

  it('refuses the same operation id with a different cause', () =>
    given([opened(), credited(), debited()])
      .when(debitCommand({ cause: { kind: 'TRANSFER', id: 'Transfer:1' } }))
      .thenThrows((error) => error.code === 'CONFLICT'));

  it('refuses a frozen account', () =>
    given([opened(), credited(), statusChanged('ACTIVE', 'FROZEN')])
      .when(debitCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_FROZEN' && error.status === 409));

  it('refuses a pending account', () =>
    given([opened('PENDING'), credited()])
      .when(debitCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_NOT_ACTIVE'));

  it('refuses a closed account', () =>
    given([opened(), statusChanged('ACTIVE', 'CLOSED')])
      .when(debitCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_CLOSED'));

  it('refuses a currency other than the account’s', () =>
    given([opened(), credited()])
      .when(debitCommand({ currency: 'MXN', counterAccountId: systemAccountId('PAYOUT_RAIL', 'MXN') }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY'));

  it('refuses a non-positive amount', () =>
    given([opened(), credited()])
      .when(debitCommand({ amount: 0n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('refuses an account that was never opened', () =>
    given([])
      .when(debitCommand())
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));

  it('answers another platform as if the account did not exist', () =>
    given([opened(), credited()])
      .when(debitCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND'));
});
