import { randomBytes, createHash } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CardIdData,
  type CardWire,
  CLOCK,
  type Clock,
  type CreateCardData,
  decodeCursor,
  idempotencyScopeOf,
  idForRequest,
  isIdOf,
  type ListCardsData,
  type Page,
  type RequestContext,
  type ServiceRequest,
  subjects,
  toPage,
  type UpdateCardData,
  claimUnique,
  claimUniqueValue,
  releaseUniqueValue,
  uniqueValueDecider,
} from '@corridor/contracts';
import { asOfTime, EventSourcing, type RecordedEvent, uniqueValueHolder } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { type Card, cardDecider, cardNotFound, type CardView, renderCard } from './card';
import { CARD_ISSUER, type CardIssuer, type IssuedCard } from './card-issuer';
import { CARD_OPTIONS, type CardOptions } from './card-options';
import { CardParties } from './card-parties';
import { CardProvisioningProcessor } from './card-provisioning-processor';
import { cardAsOf } from './card-as-of';
import { CardEntity } from './card-view.projection';
import { type IssueCard, issueCard, requireSameIssue } from './issue-card';
import { CardClosings } from '../card-transactions/card-closings';
import { type UpdateCard, updateCard } from './update-card';

export const platformCardIdKey = (platformId: string, platformCardId: string): string => `PlatformCardId:${platformId}:${platformCardId}`;

/** Stands in for the issuer's answer while a request is checked before anything is reserved or asked of the issuer. */
const placeholderIssued: IssuedCard = { issuerRef: 'pending', brand: 'VISA', last4: '0000', expMonth: 1, expYear: 2000 };

/**
 * POST /cards, GET /cards, GET and PATCH /cards/{id}. Every read and change is scoped to the
 * asking platform: another platform's card is a 404 like an unknown one.
 */
@Controller()
export class CardsController {
  private readonly logger = createLogger('cards:cards');

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: CardParties,
    private readonly processor: CardProvisioningProcessor,
    @Inject(CARD_ISSUER) private readonly issuer: CardIssuer,
    @Inject(CARD_OPTIONS) private readonly options: CardOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly closings: CardClosings,
  ) {}

  @MessagePattern(subjects.cards.card.create)
  async create(@Payload() request: ServiceRequest<CreateCardData>): Promise<CardWire> {
    const { context, data } = request;
    // A card an Embedded Wallet's owner signed for takes the id their consent names (the gateway sets it);
    // any other is derived from the Idempotency-Key: a retry after a lost answer finds the card the first
    // attempt issued (another request under the key is a 409) instead of issuing a second one.
    const signedId = data.cardId !== undefined && isIdOf('Card', data.cardId) ? data.cardId : undefined;
    const cardId = signedId ?? idForRequest('Card', idempotencyScopeOf(context), 'create-card', context.idempotencyKey);
    const earlier = context.idempotencyKey ? await this.issuedEarlier(context, cardId) : undefined;
    if (earlier) return renderCard(earlier);
    const [cardholder, sources] = await Promise.all([
      this.parties.cardholder(context, data.cardholderId),
      this.parties.fundingSources(context, data.fundingSources ?? []),
    ]);
    const now = this.clock.now();
    const platformCardId = data.platformCardId ?? `card_${randomBytes(8).toString('hex')}`;
    const command = (issued: IssuedCard): IssueCard => ({
      type: 'IssueCard',
      data: {
        cardId,
        platformId: context.platformId,
        cardholderId: cardholder.id,
        cardholderKycStatus: cardholder.kycStatus,
        ...(data.platformCardId !== undefined ? { requestedPlatformCardId: data.platformCardId } : {}),
        platformCardId,
        form: data.form,
        fundingSources: data.fundingSources,
        sources,
        issued,
        ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
      },
      metadata: { now, eligibleCurrencies: this.options.eligibleCurrencies },
    });
    // Decide once before reserving or asking the issuer, so a refused request leaves nothing behind.
    issueCard(command(placeholderIssued), cardDecider.initialState());
    const key = platformCardIdKey(context.platformId, platformCardId);
    await this.claim(context, key, cardId, `platformCardId ${platformCardId} is already used by another card of this platform.`);
    try {
      const issued = await this.issuer.requestCard({
        cardId,
        cardholderId: cardholder.id,
        ...(data.platformCardId !== undefined ? { platformCardId: data.platformCardId } : {}),
        requestedAt: now,
      });
      const { state } = await this.eventSourcing.handle(cardId, cardDecider, (current) => issueCard(command(issued), current), context, {
        assumeNew: true,
      });
      if (state.kind !== 'Exists') throw new Error(`Issuing ${cardId} recorded no CardIssued event.`);
      this.processor.kick(cardId, context.platformId);
      return renderCard(state.card);
    } catch (error) {
      // A twin under the same key that issued the card first holds the value: it stays the card's.
      const twin = await this.stored(cardId).catch((readError: unknown) => {
        // Unread, the twin counts as absent: the key is released as for a lone failed create.
        this.logger.warn({ err: readError, cardId }, 'Could not read a possible twin of a failed card create; releasing its key.');
        return undefined;
      });
      if (twin?.state.kind !== 'Exists' || twin.state.card.platformCardId !== platformCardId) await this.release(context, key, cardId);
      throw error;
    }
  }

  /** The card already issued under this id, when the request is the one that issued it (a 409 when it is another). */
  private async issuedEarlier(context: RequestContext, cardId: string): Promise<CardView | undefined> {
    const { state, events } = await this.stored(cardId);
    if (state.kind !== 'Exists') return undefined;
    requireSameIssue(state.card, context);
    await this.eventSourcing.waitForReadModels(events);
    return state.card;
  }

  private async stored(cardId: string): Promise<{ state: Card; events: RecordedEvent[] }> {
    const { state, events } = await this.eventSourcing.load(cardId, cardDecider);
    return { state, events };
  }

  @MessagePattern(subjects.cards.card.get)
  async get(@Payload() request: ServiceRequest<CardIdData>): Promise<CardWire> {
    const { cardId, asOf } = request.data;
    if (asOf !== undefined) return this.readAsOf(request.context, cardId, asOfTime(asOf));
    return renderCard(await this.read(request.context, cardId));
  }

  /** The card as it stood at `at` (decision 0039), folded from its stream; before its issue or another platform's: 404. */
  private async readAsOf(context: RequestContext, cardId: string, at: Date): Promise<CardWire> {
    if (!isIdOf('Card', cardId)) throw cardNotFound(String(cardId));
    const { events } = await this.eventSourcing.store.readStream(cardId);
    const card = cardAsOf(events, at, context.platformId);
    if (!card) throw cardNotFound(cardId);
    return card;
  }

  @MessagePattern(subjects.cards.card.update)
  async update(@Payload() request: ServiceRequest<UpdateCardData>): Promise<CardWire> {
    const { context, data } = request;
    // Unknown or another platform's card: 404 before anything else is looked up.
    await this.read(context, data.cardId);
    const sources = data.fundingSources === undefined ? [] : await this.parties.fundingSources(context, data.fundingSources);
    const command: UpdateCard = {
      type: 'UpdateCard',
      data: {
        cardId: data.cardId,
        platformId: context.platformId,
        ...(data.state !== undefined ? { state: data.state } : {}),
        ...(data.fundingSources !== undefined ? { fundingSources: data.fundingSources } : {}),
        sources,
      },
      metadata: { now: this.clock.now(), eligibleCurrencies: this.options.eligibleCurrencies },
    };
    // A card an Embedded Wallet funds changes only after the wallet's signed retry, which the gateway
    // asks of the accounts service before it gets here; the ledger holds wallet money only for a
    // card the wallet consented to (decision 0020).
    const { state } = await this.eventSourcing.handle(data.cardId, cardDecider, (card: Card) => updateCard(command, card), context);
    if (state.kind !== 'Exists') throw cardNotFound(data.cardId);
    // A closed card's open authorizations give their holds back before the close is answered (a
    // sweep finishes any this could not).
    if (state.card.state === 'CLOSED' && data.state === 'CLOSED') await this.closings.expireOpen(data.cardId);
    return renderCard(state.card);
  }

  /**
   * Keyset paging on (createdAt, id) in either direction, as GET /transactions does: a cursor
   * names the last row of a page, so cards issued while a client pages never shift a boundary.
   */
  @MessagePattern(subjects.cards.card.list)
  async list(@Payload() request: ServiceRequest<ListCardsData>): Promise<Page<CardWire>> {
    const { sortOrder = 'desc', limit, cursor } = request.data;
    const filters = cardFilters(request.context.platformId, request.data);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const direction = sortOrder === 'asc' ? 'ASC' : 'DESC';
    const values = [...filters.values];
    const keyset = after
      ? ` AND (created_at, id) ${sortOrder === 'asc' ? '>' : '<'} ($${values.push(new Date(after.createdAt))}::timestamptz, ` +
        `$${values.push(after.id)}::text)`
      : '';
    const pageSql = `SELECT id, card, created_at FROM cards.cards WHERE ${filters.where}${keyset}
                     ORDER BY created_at ${direction}, id ${direction} LIMIT $${values.push(limit + 1)}`;
    const countSql = `SELECT count(*) AS count FROM cards.cards WHERE ${filters.where}`;
    const [rows, [count]] = await Promise.all([
      this.eventSourcing.read<{ id: string; card: CardView; created_at: Date }>(statementName('cards-page', pageSql), pageSql, values),
      this.eventSourcing.read<{ count: string }>(statementName('cards-count', countSql), countSql, filters.values),
    ]);
    return toPage(
      rows.map((row) => ({ id: row.id, createdAt: row.created_at, card: row.card })),
      limit,
      Number(count?.count ?? 0),
      (row) => renderCard(row.card),
    );
  }

  private async read(context: RequestContext, cardId: string): Promise<CardView> {
    if (!isIdOf('Card', cardId)) throw cardNotFound(String(cardId));
    const row = await this.eventSourcing.em.findOne(CardEntity, { id: cardId, platformId: context.platformId }, { fields: ['card'] });
    if (!row) throw cardNotFound(cardId);
    return row.card;
  }

  private async claim(context: RequestContext, key: string, ownerId: string, conflictMessage: string): Promise<void> {
    await claimUnique({
      conflictCode: 'CONFLICT',
      claim: (abandonedOwnerId) =>
        this.eventSourcing.handle(
          key,
          uniqueValueDecider,
          (value) =>
            claimUniqueValue(
              {
                type: 'ClaimUniqueValue',
                data: { key, ownerId, conflictCode: 'CONFLICT', conflictMessage, ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
                metadata: {},
              },
              value,
            ),
          context,
          { assumeNew: true },
        ),
      // The owner may be an issue that died between its claim and its card.
      holderOf: () => uniqueValueHolder(this.eventSourcing.store, key),
      holderState: async (holderId) => ((await this.eventSourcing.store.readStream(holderId)).version > 0 ? 'exists' : 'missing'),
      now: () => this.clock.now(),
    });
  }

  private async release(context: RequestContext, key: string, ownerId: string): Promise<void> {
    await this.eventSourcing.handle(key, uniqueValueDecider, (value) => releaseUniqueValue(key, ownerId, value), context);
  }
}

type Filters = { where: string; values: unknown[] };

/** The WHERE clause of a list, with numbered parameters; the platform is always the first. */
export const cardFilters = (platformId: string, data: ListCardsData): Filters => {
  const values: unknown[] = [platformId];
  const clauses = ['platform_id = $1'];
  const equal = (column: string, value: unknown) => clauses.push(`${column} = $${values.push(value)}`);
  if (data.cardholderId !== undefined) equal('cardholder_id', data.cardholderId);
  if (data.platformCardId !== undefined) equal('platform_card_id', data.platformCardId);
  if (data.state !== undefined) equal('state', data.state);
  if (data.accountId !== undefined) clauses.push(`funding_sources @> jsonb_build_array($${values.push(data.accountId)}::text)`);
  return { where: clauses.join(' AND '), values };
};

/** Prepared statements are named by their text: each filter combination is its own plan. */
const statementName = (prefix: string, sql: string): string => `${prefix}-${createHash('sha1').update(sql).digest('hex').slice(0, 12)}`;
