import { type Command, DomainError } from '@corridor/contracts';
import type { BeneficiaryVerificationStatus } from './account-info';
import { type ExternalAccount, type ExternalAccountEvent, visibleAccount } from './external-account';

/** A payment rail's (or the sandbox's) answer to "does this name hold this account?". */
export type RecordBeneficiaryVerification = Command<
  'RecordBeneficiaryVerification',
  { externalAccountId: string; platformId: string; status: BeneficiaryVerificationStatus; verifiedData: { fullName: string } | null },
  { now: Date }
>;

export const recordBeneficiaryVerification = (command: RecordBeneficiaryVerification, state: ExternalAccount): ExternalAccountEvent[] => {
  const { externalAccountId, platformId, status, verifiedData } = command.data;
  const account = visibleAccount(state, externalAccountId, platformId);
  // Wallets name no beneficiary, so there is nothing a rail could compare.
  if (!('beneficiary' in account.accountInfo) || account.accountInfo.beneficiary === undefined) {
    throw new DomainError('INVALID_STATE_TRANSITION', 'conflict', `External account ${externalAccountId} has no beneficiary to verify.`, {
      externalAccountId,
    });
  }
  const recorded = account.verification;
  // Rails repeat their answers; the same answer again changes nothing.
  if (recorded && recorded.status === status && recorded.verifiedData?.fullName === verifiedData?.fullName) return [];
  return [
    {
      type: 'BeneficiaryVerificationRecorded',
      data: { externalAccountId, status, verifiedData, recordedAt: command.metadata.now.toISOString() },
    },
  ];
};
