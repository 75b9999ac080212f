import type { AccountInfo } from './account-info';
import type { ChangeExternalAccountStatus } from './change-external-account-status';
import { type CreateExternalAccount, identityKeyOf } from './create-external-account';
import type { DeleteExternalAccount } from './delete-external-account';
import type { BeneficiaryVerification, ExternalAccountEvent, ExternalAccountStatus } from './external-account';
import type { RecordBeneficiaryVerification } from './record-beneficiary-verification';

export const externalAccountId = 'ExternalAccount:0196f1a0-0000-7000-8000-000000000011';
export const otherExternalAccountId = 'ExternalAccount:0196f1a0-0000-7000-8000-000000000012';
export const platformId = 'Platform:0196f1a0-0000-7000-8000-0000000000aa';
export const otherPlatformId = 'Platform:0196f1a0-0000-7000-8000-0000000000bb';
export const customerId = 'Customer:0196f1a0-0000-7000-8000-000000000002';
export const at = '2026-03-01T10:00:00.000Z';
export const now = new Date(at);

export const usdRequest = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '000123456789',
  routingNumber: '011000015',
  beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
};
/** usdRequest as validation normalizes it. */
export const usdInfo: AccountInfo = {
  accountType: 'USD_ACCOUNT',
  accountNumber: '000123456789',
  routingNumber: '011000015',
  beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
};
export const walletInfo: AccountInfo = {
  accountType: 'SPARK_WALLET',
  address: 'spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu',
};

export const createCommand = (data: Partial<CreateExternalAccount['data']> = {}): CreateExternalAccount => ({
  type: 'CreateExternalAccount',
  data: {
    externalAccountId,
    platformId,
    customerId,
    currency: 'USD',
    accountInfo: usdRequest,
    platformAccountId: null,
    defaultUmaDepositAccount: false,
    ...data,
  },
  metadata: { now },
});

export const created = (
  data: Partial<Extract<ExternalAccountEvent, { type: 'ExternalAccountCreated' }>['data']> = {},
): ExternalAccountEvent => {
  const base = {
    externalAccountId,
    platformId,
    customerId,
    currency: 'USD',
    accountInfo: usdInfo,
    platformAccountId: null,
    defaultUmaDepositAccount: false,
    createdAt: at,
  };
  const merged = { ...base, ...data };
  return {
    type: 'ExternalAccountCreated',
    data: {
      ...merged,
      identityKey: data.identityKey ?? identityKeyOf(merged.platformId, merged.customerId, merged.currency, merged.accountInfo),
    },
  };
};

export const verified = (
  verification: BeneficiaryVerification = { status: 'MATCHED', verifiedData: { fullName: 'Ada Lovelace' } },
): ExternalAccountEvent => ({
  type: 'BeneficiaryVerificationRecorded',
  data: { externalAccountId, ...verification, recordedAt: at },
});

export const statusChanged = (
  from: ExternalAccountStatus,
  to: ExternalAccountStatus,
  reason = 'SANDBOX_ONBOARDED',
): ExternalAccountEvent => ({
  type: 'ExternalAccountStatusChanged',
  data: { externalAccountId, from, to, reason, changedAt: at },
});

export const deleted = (): ExternalAccountEvent => ({ type: 'ExternalAccountDeleted', data: { externalAccountId, deletedAt: at } });

export const verifyCommand = (data: Partial<RecordBeneficiaryVerification['data']> = {}): RecordBeneficiaryVerification => ({
  type: 'RecordBeneficiaryVerification',
  data: { externalAccountId, platformId, status: 'MATCHED', verifiedData: { fullName: 'Ada Lovelace' }, ...data },
  metadata: { now },
});

export const statusCommand = (
  to: ExternalAccountStatus,
  data: Partial<ChangeExternalAccountStatus['data']> = {},
): ChangeExternalAccountStatus => ({
  type: 'ChangeExternalAccountStatus',
  data: { externalAccountId, platformId, to, reason: 'OPERATOR', ...data },
  metadata: { now },
});

export const deleteCommand = (data: Partial<DeleteExternalAccount['data']> = {}): DeleteExternalAccount => ({
  type: 'DeleteExternalAccount',
  data: { externalAccountId, platformId, owner: 'CUSTOMER', ...data },
  metadata: { now },
});
