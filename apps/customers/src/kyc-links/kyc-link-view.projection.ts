import { EntitySchema } from '@mikro-orm/core';
import type { CustomerType, KycLinkDecision, KycLinkPage } from '@corridor/contracts';
import type { Projection, RecordedEvent } from '@corridor/event-store';
import { type KycLinkEvent, kycLinkEventTypes } from './kyc-link';

/** One hosted KYC link, found by the hash of its token when the customer opens it. */
export type KycLinkRow = {
  id: string;
  tokenHash: string;
  customerId: string;
  customerType: CustomerType;
  platformId: string;
  expiresAt: Date;
  redirectUri: string | null;
  usedAt: Date | null;
  decision: KycLinkDecision | null;
};

export const KycLinkEntity = new EntitySchema<KycLinkRow>({
  name: 'KycLinkRow',
  tableName: 'kyc_links',
  properties: {
    id: { type: 'string', primary: true },
    tokenHash: { type: 'string' },
    customerId: { type: 'string' },
    customerType: { type: 'string' },
    platformId: { type: 'string' },
    expiresAt: { type: 'Date' },
    redirectUri: { type: 'string', nullable: true },
    usedAt: { type: 'Date', nullable: true },
    decision: { type: 'string', nullable: true },
  },
});

export const evolveKycLinkView = (row: KycLinkRow | null, recorded: RecordedEvent): KycLinkRow | null => {
  const event = recorded as unknown as KycLinkEvent;
  switch (event.type) {
    case 'KycLinkIssued': {
      const { linkId, tokenHash, customerId, customerType, platformId, expiresAt, redirectUri } = event.data;
      return {
        id: linkId,
        tokenHash,
        customerId,
        customerType,
        platformId,
        expiresAt: new Date(expiresAt),
        redirectUri: redirectUri ?? null,
        usedAt: null,
        decision: null,
      };
    }
    case 'KycLinkUsed':
      if (!row) return row;
      return { ...row, usedAt: new Date(event.data.usedAt), decision: event.data.decision };
    default:
      return row;
  }
};

export const kycLinkViewProjection: Projection<KycLinkRow> = {
  name: 'kyc-links',
  version: 1,
  canHandle: kycLinkEventTypes,
  entity: KycLinkEntity,
  keyOf: (event) => String(event.data['linkId']),
  evolve: evolveKycLinkView,
};

export const renderKycLinkPage = (row: KycLinkRow, now: Date): KycLinkPage => ({
  customerId: row.customerId,
  customerType: row.customerType,
  expiresAt: row.expiresAt.toISOString(),
  state: row.usedAt ? 'USED' : row.expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : 'OPEN',
  ...(row.redirectUri ? { redirectUri: row.redirectUri } : {}),
});
