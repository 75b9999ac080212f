import type { TransferTerms } from '../transactions/transfer-events';
import type { CreateTransfer } from './create-transfer';

export const platformId = 'Platform:01950000-0000-7000-8000-000000000001';
export const customerId = 'Customer:01950000-0000-7000-8000-000000000002';
export const internalAccountId = 'InternalAccount:01950000-0000-7000-8000-000000000003';
export const externalAccountId = 'ExternalAccount:01950000-0000-7000-8000-000000000004';
export const transactionId = 'Transaction:01950000-0000-7000-8000-0000000000aa';
export const createdAt = '2026-03-01T10:00:00.000Z';

export const transferTerms = (overrides: Partial<TransferTerms> = {}): Omit<TransferTerms, 'createdAt'> => ({
  transactionId,
  platformId,
  direction: 'OUT',
  internalAccountId,
  externalAccountId,
  currency: 'USD',
  amount: '12550',
  outcome: 'SUCCEEDS',
  fingerprint: JSON.stringify(['OUT', internalAccountId, externalAccountId, '12550']),
  holdId: transactionId,
  ...overrides,
});

export const createTransferCommand = (overrides: Partial<TransferTerms> = {}, now = createdAt): CreateTransfer => ({
  type: 'CreateTransfer',
  data: { transfer: transferTerms(overrides), customerId, platformCustomerId: 'cust-42' },
  metadata: { now: new Date(now) },
});
