import { type Command, DomainError, idempotencyConflict, type KycStatus, requireSameRequest } from '@corridor/contracts';
import type { Card, CardEvent, CardView } from './card';
import type { IssuedCard } from './card-issuer';
import { eligibleCurrencyOf, type FundingSourceFacts } from './funding-sources';

// Issuing a card: the cardholder must be KYC APPROVED and every funding source eligible
// (funding-sources.ts); the card starts PENDING_ISSUE with what the issuer assigned, and the
// provisioning processor asks the issuer at once (provisioningCheckAt = now) whether it is live.

export type IssueCard = Command<
  'IssueCard',
  {
    cardId: string;
    platformId: string;
    cardholderId: string;
    cardholderKycStatus: KycStatus | undefined;
    /** As sent; undefined when Corridor generated `platformCardId`. */
    requestedPlatformCardId?: string;
    platformCardId: string;
    form: 'VIRTUAL';
    fundingSources: string[];
    sources: FundingSourceFacts[];
    issued: IssuedCard;
    /** The request's fingerprint, when it has an Idempotency-Key (the card id is then derived from the key). */
    requestFingerprint?: string;
  },
  { now: Date; eligibleCurrencies: readonly string[] }
>;

/**
 * The card id is derived from the Idempotency-Key (in the actor's scope), so a card under it is this
 * request again (a retry after a lost answer: nothing new, answered with the card as it stands) or
 * another request under a used key, a 409 (decision 0028).
 */
export const requireSameIssue = (card: CardView, request: { platformId: string; requestFingerprint?: string | undefined }): void => {
  if (card.platformId !== request.platformId) throw idempotencyConflict(card.id);
  requireSameRequest(card.requestFingerprint, request.requestFingerprint, card.id);
};

export const issueCard = (command: IssueCard, state: Card): CardEvent[] => {
  const { data, metadata } = command;
  if (state.kind === 'Exists') {
    requireSameIssue(state.card, data);
    return [];
  }
  if (data.cardholderKycStatus !== 'APPROVED') {
    throw new DomainError(
      'CARDHOLDER_KYC_NOT_APPROVED',
      'validation',
      `Cardholder ${data.cardholderId} has KYC status ${data.cardholderKycStatus ?? 'UNVERIFIED'}; a card is issued only to a ` +
        `cardholder whose KYC is APPROVED.`,
      { field: 'cardholderId', kycStatus: data.cardholderKycStatus ?? 'UNVERIFIED' },
    );
  }
  const currency = eligibleCurrencyOf('fundingSources', data.fundingSources, data.sources, {
    cardholderId: data.cardholderId,
    eligibleCurrencies: metadata.eligibleCurrencies,
  });
  const at = metadata.now.toISOString();
  const card: CardView = {
    id: data.cardId,
    platformId: data.platformId,
    cardholderId: data.cardholderId,
    platformCardId: data.platformCardId,
    ...(data.requestedPlatformCardId === undefined ? { platformCardIdGenerated: true as const } : {}),
    state: 'PENDING_ISSUE',
    stateReason: null,
    form: data.form,
    brand: data.issued.brand,
    last4: data.issued.last4,
    expMonth: data.issued.expMonth,
    expYear: data.issued.expYear,
    ...(data.issued.panEmbedUrl !== undefined ? { panEmbedUrl: data.issued.panEmbedUrl } : {}),
    issuerRef: data.issued.issuerRef,
    fundingSources: [...data.fundingSources],
    currency,
    ...(data.requestFingerprint !== undefined ? { requestFingerprint: data.requestFingerprint } : {}),
    createdAt: at,
    updatedAt: at,
  };
  return [{ type: 'CardIssued', data: { card, provisioningCheckAt: at } }];
};
