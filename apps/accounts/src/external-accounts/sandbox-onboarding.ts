import { type AccountInfo, primaryIdentifierOf, sandboxBeneficiaryOutcome } from './account-info';
import { changeExternalAccountStatus } from './change-external-account-status';
import type { BeneficiaryVerification, ExternalAccount, ExternalAccountEvent, ExternalAccountStatus } from './external-account';
import { recordBeneficiaryVerification } from './record-beneficiary-verification';

// The sandbox stands in for the payment rail that verifies a beneficiary's name and for the
// onboarding that activates an account. It runs in the same append as the creation (see the
// controller), so a sandbox account is never seen half onboarded and its POST already answers
// with the outcome: "promptly" with nothing left to poll and no background step that could be lost.

const beneficiaryNameOf = (info: AccountInfo): string | undefined => {
  const beneficiary = 'beneficiary' in info ? info.beneficiary : undefined;
  if (beneficiary === undefined || typeof beneficiary !== 'object') return undefined;
  return 'fullName' in beneficiary ? beneficiary.fullName : 'legalName' in beneficiary ? beneficiary.legalName : undefined;
};

/** "John Doe" held as "J. Doe": the kind of near miss a rail reports as a partial match. */
const nearMiss = (name: string): string => {
  const [first, ...rest] = name.split(/\s+/);
  return rest.length > 0 && first ? `${first.charAt(0)}. ${rest.join(' ')}` : name.toUpperCase();
};

/**
 * The verification the sandbox rail reports, from the last three digits of the primary identifier
 * (the reference's 102–107 table; 105 throws the 400 for an account the bank refuses). Like a
 * confirmation-of-payee service, the rail names the holder only on a match or a near match.
 * Null for accounts without a beneficiary (wallets): there is no name to compare.
 */
export const sandboxVerificationOf = (info: AccountInfo): BeneficiaryVerification | null => {
  const name = beneficiaryNameOf(info);
  if (name === undefined) return null;
  const status = sandboxBeneficiaryOutcome(primaryIdentifierOf(info));
  const verifiedData = status === 'MATCHED' ? { fullName: name } : status === 'PARTIAL_MATCH' ? { fullName: nearMiss(name) } : null;
  return { status, verifiedData };
};

/**
 * Where onboarding leaves the account. A name that does not match is the classic sign of a payment
 * going to the wrong person, so that account waits UNDER_REVIEW; a verification still in progress
 * (104) leaves it PENDING; every other answer, and a wallet, makes it ACTIVE.
 */
export const statusAfterVerification = (
  verification: BeneficiaryVerification | null,
): { to: ExternalAccountStatus; reason: string } | null => {
  if (verification === null) return { to: 'ACTIVE', reason: 'SANDBOX_ONBOARDED' };
  switch (verification.status) {
    case 'PENDING':
      return null;
    case 'NOT_MATCHED':
      return { to: 'UNDER_REVIEW', reason: 'BENEFICIARY_NOT_MATCHED' };
    default:
      return { to: 'ACTIVE', reason: 'SANDBOX_ONBOARDED' };
  }
};

/** The decisions that onboard a freshly created sandbox account, for decideInSequence. */
export const sandboxOnboarding = (
  externalAccountId: string,
  platformId: string,
  verification: BeneficiaryVerification | null,
  now: Date,
): ((state: ExternalAccount) => ExternalAccountEvent[])[] => {
  const target = statusAfterVerification(verification);
  return [
    ...(verification
      ? [
          (state: ExternalAccount) =>
            recordBeneficiaryVerification(
              { type: 'RecordBeneficiaryVerification', data: { externalAccountId, platformId, ...verification }, metadata: { now } },
              state,
            ),
        ]
      : []),
    ...(target
      ? [
          (state: ExternalAccount) =>
            changeExternalAccountStatus(
              { type: 'ChangeExternalAccountStatus', data: { externalAccountId, platformId, ...target }, metadata: { now } },
              state,
            ),
        ]
      : []),
  ];
};
