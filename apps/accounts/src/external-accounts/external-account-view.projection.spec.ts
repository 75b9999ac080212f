// Pins down the external-account read model: what GET shows after each event, the default flag
// coming from the customer's default stream, and the wire form (paymentRails, no customerId for the platform).
import type { RecordedEvent } from '@corridor/event-store';
import {
  at,
  created,
  customerId,
  deleted,
  externalAccountId,
  otherExternalAccountId,
  platformId,
  statusChanged,
  verified,
  walletInfo,
} from './external-account.fixtures';
import { evolveExternalAccountView, type ExternalAccountRow, renderExternalAccount } from './external-account-view.projection';

let position = 0n;
const recorded = (event: { type: string; data: object }): RecordedEvent => {
  position += 1n;
  return {
    eventId: `event-${position}`,
    streamId: externalAccountId,
    streamPosition: Number(position),
    globalPosition: position,
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata: { platformId, correlationId: 'c', requestId: 'r', occurredAt: at, schemaVersion: 1 },
  } as RecordedEvent;
};
const fold = (events: { type: string; data: object }[]): ExternalAccountRow | null =>
  events.map(recorded).reduce<ExternalAccountRow | null>(evolveExternalAccountView, null);
const assigned = (id = externalAccountId) => ({
  type: 'UmaDepositDefaultAssigned',
  data: { customerId, externalAccountId: id, assignedAt: at },
});
const cleared = (id = externalAccountId) => ({
  type: 'UmaDepositDefaultCleared',
  data: { customerId, externalAccountId: id, replacedBy: otherExternalAccountId, clearedAt: at },
});

describe('external account view', () => {
  it('shows an onboarded customer account as the reference ExternalAccount', () => {
    const row = fold([
      created({ platformAccountId: 'acct-1', defaultUmaDepositAccount: true }),
      verified(),
      statusChanged('PENDING', 'ACTIVE'),
      assigned(),
    ]);
    expect(row && renderExternalAccount(row)).toEqual({
      id: externalAccountId,
      customerId,
      status: 'ACTIVE',
      platformAccountId: 'acct-1',
      currency: 'USD',
      defaultUmaDepositAccount: true,
      beneficiaryVerificationStatus: 'MATCHED',
      beneficiaryVerifiedData: { fullName: 'Ada Lovelace' },
      accountInfo: {
        accountType: 'USD_ACCOUNT',
        accountNumber: '000123456789',
        routingNumber: '011000015',
        beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
        paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
      },
    });
  });

  it('is not the default until the default stream says so, and stops being it when replaced', () => {
    expect(fold([created({ defaultUmaDepositAccount: true })])?.defaultUmaDepositAccount).toBe(false);
    expect(fold([created(), assigned(), cleared()])?.defaultUmaDepositAccount).toBe(false);
  });

  it('renders a platform wallet without customerId, verification or rails', () => {
    const row = fold([created({ customerId: null, currency: 'BTC', accountInfo: walletInfo }), statusChanged('PENDING', 'ACTIVE')]);
    expect(row && renderExternalAccount(row)).toEqual({
      id: externalAccountId,
      status: 'ACTIVE',
      currency: 'BTC',
      defaultUmaDepositAccount: false,
      accountInfo: walletInfo,
    });
  });

  it('keeps a deleted account’s row, marked deleted', () => expect(fold([created(), deleted()])?.isDeleted).toBe(true));

  it('skips an event about an account it never saw', () => expect(fold([assigned()])).toBeNull());
});
