// Pins down how a beneficiary-name verification result is recorded on an external account.
import { deciderSpec } from '@corridor/testing';
import { externalAccountDecider } from './external-account';
import { created, deleted, otherPlatformId, verified, verifyCommand, walletInfo } from './external-account.fixtures';
import { recordBeneficiaryVerification } from './record-beneficiary-verification';

const { given } = deciderSpec({ decide: recordBeneficiaryVerification, ...externalAccountDecider });

describe('RecordBeneficiaryVerification', () => {
  it('records the rail’s answer with the name it holds', () => given([created()]).when(verifyCommand()).then([verified()]));

  it('records a later, different answer', () =>
    given([created(), verified({ status: 'PENDING', verifiedData: null })])
      .when(verifyCommand({ status: 'NOT_MATCHED', verifiedData: null }))
      .then([verified({ status: 'NOT_MATCHED', verifiedData: null })]));

  it('does nothing when the rail repeats its answer', () => given([created(), verified()]).when(verifyCommand()).thenNothingHappened());

  it('refuses an account without a beneficiary (a wallet)', () =>
    given([created({ currency: 'BTC', accountInfo: walletInfo })])
      .when(verifyCommand())
      .thenThrows((error) => error.code === 'INVALID_STATE_TRANSITION'));

  it('answers 404 for a deleted account and another platform’s', () => {
    given([created(), deleted()])
      .when(verifyCommand())
      .thenThrows((error) => error.status === 404);
    given([created()])
      .when(verifyCommand({ platformId: otherPlatformId }))
      .thenThrows((error) => error.status === 404);
  });
});
