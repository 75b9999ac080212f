import { createHash } from 'node:crypto';
import type { CustomerType, Event, KycLinkDecision } from '@corridor/contracts';

// A hosted KYC link is recorded in its customer's stream (docs/decisions/0011): issuing appends
// KycLinkIssued with the SHA-256 of the token (never the token), using it appends KycLinkUsed. Both
// are decided on the customer's version, so of two uses racing each other exactly one is recorded.

export type KycLinkOnRecord = {
  linkId: string;
  tokenHash: string;
  expiresAt: string;
  redirectUri?: string;
  usedAt?: string;
  decision?: KycLinkDecision;
};

export type KycLinkIssued = Event<
  'KycLinkIssued',
  {
    customerId: string;
    platformId: string;
    customerType: CustomerType;
    linkId: string;
    tokenHash: string;
    expiresAt: string;
    redirectUri?: string;
    issuedAt: string;
  }
>;
export type KycLinkUsed = Event<
  'KycLinkUsed',
  { customerId: string; platformId: string; linkId: string; decision: KycLinkDecision; usedAt: string }
>;
export type KycLinkEvent = KycLinkIssued | KycLinkUsed;

export const kycLinkEventTypes: readonly KycLinkEvent['type'][] = ['KycLinkIssued', 'KycLinkUsed'];

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const evolveKycLinks = (links: readonly KycLinkOnRecord[], event: KycLinkEvent): KycLinkOnRecord[] => {
  switch (event.type) {
    case 'KycLinkIssued': {
      const { linkId, tokenHash, expiresAt, redirectUri, issuedAt: _issuedAt } = event.data;
      if (links.some((link) => link.linkId === linkId)) return [...links];
      return [...links, { linkId, tokenHash, expiresAt, ...(redirectUri ? { redirectUri } : {}) }];
    }
    case 'KycLinkUsed':
      return links.map((link) =>
        link.linkId === event.data.linkId ? { ...link, usedAt: event.data.usedAt, decision: event.data.decision } : link,
      );
    default: {
      const unknownEvent: never = event;
      return unknownEvent;
    }
  }
};
