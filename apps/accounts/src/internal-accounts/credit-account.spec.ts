// Pins down when money may come into an account: any open, non-closed account, exactly once per operation.
import { deciderSpec } from '@corridor/testing';
import { creditAccount } from './credit-account';
import { internalAccountDecider, systemAccountId } from './internal-account';
import { creditCommand, credited, debited, opened, otherPlatformId, statusChanged } from './internal-account.fixtures';

const { given } = deciderSpec({ decide: creditAccount, ...internalAccountDecider });

describe('CreditAccount', () => {
  it('credits an active account', () => given([opened()]).when(creditCommand()).then([credited()]));

  it('credits a frozen account, because the money has already arrived', () =>
    given([opened(), statusChanged('ACTIVE', 'FROZEN')])
      .when(creditCommand())
      .then([credited()]));

  it('credits a pending account', () =>
    given([opened('PENDING')])
      .when(creditCommand())
      .then([credited()]));

  it('does nothing when the same operation is repeated', () => given([opened(), credited()]).when(creditCommand()).thenNothingHappened());

  it('does nothing on a repeat even after the account closed', () =>
    given([opened(), credited(), debited('1000'), statusChanged('ACTIVE', 'CLOSED')])
      .when(creditCommand())
      .thenNothingHappened());

  it('refuses the same operation id with a different amount', () =>
    given([opened(), credited()])
      .when(creditCommand({ amount: 999n }))
      .thenThrows((error) => error.code === 'CONFLICT' && error.status === 409));

  it('refuses a currency other than the account’s', () =>
    given([opened()])
      .when(creditCommand({ currency: 'EUR', counterAccountId: systemAccountId('FUNDING_RAIL', 'EUR') }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY' && error.status === 400));

  it('refuses a zero amount', () =>
    given([opened()])
      .when(creditCommand({ amount: 0n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT' && error.status === 400));

  it('refuses a negative amount', () =>
    given([opened()])
      .when(creditCommand({ amount: -5n }))
      .thenThrows((error) => error.code === 'INVALID_AMOUNT'));

  it('refuses a counter account that is not a system account of the currency', () =>
    given([opened()])
      .when(creditCommand({ counterAccountId: systemAccountId('FUNDING_RAIL', 'EUR') }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'counterAccountId'));

  it('refuses a closed account', () =>
    given([opened(), statusChanged('ACTIVE', 'CLOSED')])
      .when(creditCommand())
      .thenThrows((error) => error.code === 'ACCOUNT_CLOSED' && error.status === 409));

  it('refuses an account that was never opened', () =>
    given([])
      .when(creditCommand())
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND' && error.status === 404));

  it('answers another platform as if the account did not exist', () =>
    given([opened()])
      .when(creditCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.code === 'REFERENCE_NOT_FOUND' && error.status === 404));
});
