import { EntitySchema } from '@mikro-orm/core';
import type { BeneficiaryVerificationStatusWire, ExternalAccountWire } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import type { AccountInfo } from './account-info';
import { paymentRailsByAccountType } from './account-types.generated';
import type { ExternalAccountEvent, ExternalAccountStatus } from './external-account';
import type { UmaDepositDefaultEvent } from './uma-deposit-default';

/** The external account as GET and list return it, with the columns the lists filter on. */
export type ExternalAccountRow = {
  id: string;
  platformId: string;
  customerId: string | null;
  currency: string;
  accountType: string;
  status: ExternalAccountStatus;
  accountInfo: AccountInfo;
  platformAccountId: string | null;
  defaultUmaDepositAccount: boolean;
  beneficiaryVerificationStatus: BeneficiaryVerificationStatusWire | null;
  beneficiaryVerifiedData: { fullName: string } | null;
  /** Deleted rows stay (the stream does too) but no query a client can make returns them. */
  isDeleted: boolean;
  createdAt: Date;
  updatedAt: Date;
};

export const ExternalAccountEntity = new EntitySchema<ExternalAccountRow>({
  name: 'ExternalAccountRow',
  tableName: 'external_accounts',
  properties: {
    id: { type: 'string', primary: true },
    platformId: { type: 'string' },
    customerId: { type: 'string', nullable: true },
    currency: { type: 'string' },
    accountType: { type: 'string' },
    status: { type: 'string' },
    accountInfo: { type: 'json' },
    platformAccountId: { type: 'string', nullable: true },
    defaultUmaDepositAccount: { type: 'boolean' },
    beneficiaryVerificationStatus: { type: 'string', nullable: true },
    beneficiaryVerifiedData: { type: 'json', nullable: true },
    isDeleted: { type: 'boolean' },
    createdAt: { type: 'Date' },
    updatedAt: { type: 'Date' },
  },
});

type ViewEvent = ExternalAccountEvent | UmaDepositDefaultEvent;

const evolveExisting = (row: ExternalAccountRow, event: Exclude<ViewEvent, { type: 'ExternalAccountCreated' }>): ExternalAccountRow => {
  switch (event.type) {
    case 'BeneficiaryVerificationRecorded':
      return { ...row, beneficiaryVerificationStatus: event.data.status, beneficiaryVerifiedData: event.data.verifiedData };
    case 'ExternalAccountStatusChanged':
      return { ...row, status: event.data.to };
    case 'ExternalAccountDeleted':
      return { ...row, isDeleted: true };
    case 'UmaDepositDefaultAssigned':
      return { ...row, defaultUmaDepositAccount: true };
    case 'UmaDepositDefaultCleared':
      return { ...row, defaultUmaDepositAccount: false };
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};

export const evolveExternalAccountView = (row: ExternalAccountRow | null, recorded: RecordedEvent): ExternalAccountRow | null => {
  const event = recorded as unknown as ViewEvent;
  if (event.type === 'ExternalAccountCreated') {
    const { externalAccountId, platformId, customerId, currency, accountInfo, platformAccountId, createdAt } = event.data;
    return {
      id: externalAccountId,
      platformId,
      customerId,
      currency,
      accountType: accountInfo.accountType,
      status: 'PENDING',
      accountInfo,
      platformAccountId,
      // Only the customer's UmaDepositDefault stream makes an account the default (see uma-deposit-default.ts).
      defaultUmaDepositAccount: false,
      beneficiaryVerificationStatus: null,
      beneficiaryVerifiedData: null,
      isDeleted: false,
      createdAt: new Date(createdAt),
      updatedAt: new Date(createdAt),
    };
  }
  // The default stream is appended after the account's creation, so a missing row is an event
  // about an account this view never saw; skip it rather than stall the view.
  if (!row) return row;
  return { ...evolveExisting(row, event), updatedAt: new Date(recorded.metadata.occurredAt) };
};

export const externalAccountViewProjection: Projection<ExternalAccountRow> = {
  name: 'external-accounts',
  version: 1,
  canHandle: [
    'ExternalAccountCreated',
    'BeneficiaryVerificationRecorded',
    'ExternalAccountStatusChanged',
    'ExternalAccountDeleted',
    'UmaDepositDefaultAssigned',
    'UmaDepositDefaultCleared',
  ],
  entity: ExternalAccountEntity,
  keyOf: (event) => String(event.data['externalAccountId']),
  evolve: evolveExternalAccountView,
};

/**
 * The reference ExternalAccount. Bank variants answer with the rails the account is reachable over
 * (paymentRails, required in every response variant): all the reference lists for its accountType,
 * since the sandbox reaches every account over each of them.
 */
export const renderExternalAccount = (row: ExternalAccountRow): ExternalAccountWire => {
  const rails = paymentRailsByAccountType[row.accountType];
  return {
    id: row.id,
    ...(row.customerId ? { customerId: row.customerId } : {}),
    status: row.status,
    ...(row.platformAccountId !== null ? { platformAccountId: row.platformAccountId } : {}),
    currency: row.currency,
    defaultUmaDepositAccount: row.defaultUmaDepositAccount,
    ...(row.beneficiaryVerificationStatus !== null ? { beneficiaryVerificationStatus: row.beneficiaryVerificationStatus } : {}),
    ...(row.beneficiaryVerifiedData !== null ? { beneficiaryVerifiedData: row.beneficiaryVerifiedData } : {}),
    accountInfo: { ...row.accountInfo, ...(rails ? { paymentRails: [...rails] } : {}) },
  };
};
