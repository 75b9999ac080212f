// Given an external account's stream (empty, or a twin's account under the same key), when a create
// is planned in the sandbox or in production, then the events of its one append, the identity it
// claims and whether it becomes the default UMA deposit account, or the refusal before any write.
import type { PlatformEnvironment } from '@corridor/contracts';
import { deciderSpec } from '@corridor/testing';
import type { AccountInfo } from './account-info';
import type { CreateExternalAccount } from './create-external-account';
import { externalAccountDecider } from './external-account';
import { createCommand, created, customerId, statusChanged, usdInfo, usdRequest, verified } from './external-account.fixtures';
import { planExternalAccount } from './plan-external-account';

const planned = (environment: PlatformEnvironment) =>
  deciderSpec({
    decide: (command: CreateExternalAccount, state) => planExternalAccount(command, environment).decide(state),
    ...externalAccountDecider,
  });
const sandbox = planned('SANDBOX');
const production = planned('PRODUCTION');
const withSuffix = (suffix: string) => ({ ...usdRequest, accountNumber: `000123456${suffix}` });

describe('planExternalAccount', () => {
  it('records a sandbox account with its verification and activation in one append', () =>
    sandbox
      .given([])
      .when(createCommand())
      .then([created(), verified(), statusChanged('PENDING', 'ACTIVE')]));

  it('records a production account as created only: onboarding is the rail’s', () =>
    production.given([]).when(createCommand()).then([created()]));

  it('holds a sandbox account whose beneficiary does not match for review', () =>
    sandbox
      .given([])
      .when(createCommand({ accountInfo: withSuffix('102') }))
      .then([
        created({ accountInfo: { ...usdInfo, accountNumber: '000123456102' } as AccountInfo }),
        verified({ status: 'NOT_MATCHED', verifiedData: null }),
        statusChanged('PENDING', 'UNDER_REVIEW', 'BENEFICIARY_NOT_MATCHED'),
      ]));

  it('refuses, before anything is written, a sandbox account the bank refuses (suffix 105)', () =>
    expect(() => planExternalAccount(createCommand({ accountInfo: withSuffix('105') }), 'SANDBOX')).toThrow(
      expect.objectContaining({ code: 'INVALID_BANK_ACCOUNT', status: 400 }),
    ));

  it('answers the same request again with the twin’s account, onboarding nothing', () =>
    sandbox
      .given([created({ requestFingerprint: 'f1' }), verified(), statusChanged('PENDING', 'ACTIVE')])
      .when(createCommand({ requestFingerprint: 'f1' }))
      .thenNothingHappened());

  it('refuses another request under the key that got there first with a 409', () =>
    sandbox
      .given([created({ customerId: null })])
      .when(createCommand())
      .thenThrows((error) => error.status === 409));

  it('claims the identity of the account it records', () =>
    expect(planExternalAccount(createCommand(), 'PRODUCTION').identityKey).toBe(
      (created() as Extract<ReturnType<typeof created>, { type: 'ExternalAccountCreated' }>).data.identityKey,
    ));

  it('makes a customer’s account the default UMA deposit account only when asked', () => {
    expect(planExternalAccount(createCommand({ defaultUmaDepositAccount: true }), 'SANDBOX').defaultFor).toBe(customerId);
    expect(planExternalAccount(createCommand(), 'SANDBOX').defaultFor).toBeNull();
  });
});
