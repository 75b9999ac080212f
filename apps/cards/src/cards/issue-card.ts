import { type Command, DomainError, type KycStatus } from '@corridor/contracts';
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
  },
  { now: Date; eligibleCurrencies: readonly string[] }
>;

export const issueCard = (command: IssueCard, state: Card): CardEvent[] => {
  const { data, metadata } = command;
  if (state.kind === 'Exists') {
    // The same card id again is the retry of one create (ids are per request): nothing new.
    if (state.card.platformCardId === data.platformCardId && state.card.cardholderId === data.cardholderId) return [];
    throw new DomainError('CONFLICT', 'conflict', `Card ${data.cardId} already exists.`);
  }
  if (data.cardholderKycStatus !== 'APPROVED') {
    throw new DomainError(
      'CARDHOLDER_KYC_NOT_APPROVED',
      'validation',
      `Cardholder ${data.cardholderId} has KYC status ${data.cardholderKycStatus ?? 'UNVERIFIED'}; a card is issued only to a cardholder whose KYC is APPROVED.`,
      { field: 'cardholderId', kycStatus: data.cardholderKycStatus ?? 'UNVERIFIED' },
    );
  }
  const currency = eligibleCurrencyOf('fundingSources', data.fundingSources, data.sources, { cardholderId: data.cardholderId, eligibleCurrencies: metadata.eligibleCurrencies });
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
    createdAt: at,
    updatedAt: at,
  };
  return [{ type: 'CardIssued', data: { card, provisioningCheckAt: at } }];
};
