import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { v5 as uuidv5 } from 'uuid';
import {
  cardTransactionSubjects,
  type CardTransactionWire,
  CLOCK,
  type Clock,
  type CreditData,
  type DebitData,
  DomainError,
  type GetCardTransactionData,
  type InternalAccountWire,
  invalidInput,
  newId,
  parseMinorUnits,
  type ReleaseHoldData,
  type RequestContext,
  type ServiceRequest,
  type SettleHoldData,
  type SimulateCardAuthorizationData,
  type SimulateCardClearingData,
  type SimulateCardReturnData,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { CARD_LOOKUP, type CardForTransactions, type CardLookup } from './card-lookup';
import {
  authorizeCardTransaction,
  type CardTransaction,
  cardTransactionDecider,
  type CardTransactionEvent,
  clearCardTransaction,
  confirmPendingPull,
  holdIdOf,
  type OpenCardTransaction,
  operationIds,
  planClearing,
  planRefund,
  requireCardTransaction,
  returnCardTransaction,
} from './card-transaction';
import { renderCardTransaction } from './card-transaction-view';
import { CardTransactionEntity, loadCardTransaction } from './card-transaction-view.projection';
import { type AuthorizationPlan, cannotPay, nextHold, planAuthorization } from './plan-authorization';

const LEDGER_TIMEOUT_MS = 10_000;
/** Namespace of card-transaction ids derived from Idempotency-Keys (uuid v5). */
const CARD_TRANSACTION_ID_NAMESPACE = '5b2f0c1e-8d4a-5e3b-9f6c-2a7d1e4b8c90';
const AMOUNT_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The same Idempotency-Key names the same transaction, so a retry cannot hold twice. Only a
 * platform simulates card activity (sandbox), so its key's scope is the platform (decision 0028).
 */
export const cardTransactionIdFor = (platformId: string, cardId: string, idempotencyKey: string | undefined): string =>
  idempotencyKey === undefined
    ? newId('CardTransaction')
    : `CardTransaction:${uuidv5(`${platformId}\n${cardId}\n${idempotencyKey}`, CARD_TRANSACTION_ID_NAMESPACE)}`;

const refundIdOf = (cardTransactionId: string, refund: number): string =>
  `CardRefund:${uuidv5(`${cardTransactionId}\n${refund}`, CARD_TRANSACTION_ID_NAMESPACE)}`;

const cause = (cardTransactionId: string) => ({ kind: 'CARD_SETTLEMENT' as const, id: cardTransactionId });

/**
 * Card transactions: the sandbox simulators drive them, the accounts ledger moves the money. Every
 * ledger step carries an operation id built from the transaction id and the step, and the stream
 * records the step only after the ledger took it, so a retry after a crash on either side repeats
 * the same operation ids and the ledger answers the steps it already took with nothing new.
 */
@Controller()
export class CardTransactionsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(CARD_LOOKUP) private readonly cards: CardLookup,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(cardTransactionSubjects.authorize)
  async authorize(@Payload() request: ServiceRequest<SimulateCardAuthorizationData>): Promise<CardTransactionWire> {
    const { context, data } = request;
    const amount = parseMinorUnits(data.amount, { field: 'amount', min: 1n, max: AMOUNT_MAX });
    const card = await this.requireCard(data.cardId, context);
    const merchant = {
      descriptor: data.merchant.descriptor,
      ...(data.merchant.mcc ? { mcc: data.merchant.mcc } : {}),
      ...(data.merchant.country ? { country: data.merchant.country } : {}),
    };
    const cardTransactionId = cardTransactionIdFor(context.platformId, card.id, data.idempotencyKey);
    const existing = await this.load(cardTransactionId);
    if (existing.kind === 'Open')
      return renderCardTransaction(requireCardTransaction(existing, cardTransactionId, context.platformId, card.id));
    const plan = planAuthorization(card, { cardTransactionId, amount, currency: data.currency, merchant });
    const accountId = await this.holdOnFirstSource(context, plan);
    const state = await this.decide(cardTransactionId, context, (current) =>
      authorizeCardTransaction(
        {
          type: 'AuthorizeCardTransaction',
          data: { cardTransactionId, card, accountId, amount, currency: card.currency, merchant },
          metadata: { now: this.clock.now() },
        },
        current,
      ),
    );
    return renderCardTransaction(state);
  }

  @MessagePattern(cardTransactionSubjects.clear)
  async clear(@Payload() request: ServiceRequest<SimulateCardClearingData>): Promise<CardTransactionWire> {
    const { context, data } = request;
    const amount = parseMinorUnits(data.amount, { field: 'amount', min: 0n, max: AMOUNT_MAX });
    const card = await this.requireCard(data.cardId, context);
    const transaction = await this.current(data.cardTransactionId, context, card.id);
    const plan = planClearing(transaction, amount);
    const id = transaction.id;
    const ledger = { accountId: transaction.accountId, holdId: holdIdOf(id) };
    if (plan.release > 0n) {
      await this.ledger<ReleaseHoldData>(
        subjects.accounts.ledger.release,
        { ...ledger, operationId: operationIds.release(id, plan.clearing) },
        context,
      );
    }
    if (plan.fromHold > 0n) {
      const settle: SettleHoldData = {
        ...ledger,
        operationId: operationIds.settle(id, plan.clearing),
        amount: plan.fromHold.toString(),
        keepRemainder: true,
      };
      await this.ledger(subjects.accounts.ledger.settle, settle, context);
    }
    const postHocPull =
      plan.postHocPull > 0n ? await this.pullAfterTheFact(transaction, plan.clearing, plan.postHocPull, context) : undefined;
    const state = await this.decide(id, context, (current) =>
      clearCardTransaction(
        {
          type: 'ClearCardTransaction',
          data: { cardTransactionId: id, platformId: context.platformId, cardId: card.id, plan, ...(postHocPull ? { postHocPull } : {}) },
          metadata: { now: this.clock.now() },
        },
        current,
      ),
    );
    return renderCardTransaction(state);
  }

  @MessagePattern(cardTransactionSubjects.return)
  async giveBack(@Payload() request: ServiceRequest<SimulateCardReturnData>): Promise<CardTransactionWire> {
    const { context, data } = request;
    const amount = parseMinorUnits(data.amount, { field: 'amount', min: 1n, max: AMOUNT_MAX });
    const card = await this.requireCard(data.cardId, context);
    const transaction = await this.current(data.cardTransactionId, context, card.id);
    const plan = planRefund(transaction, amount);
    const id = transaction.id;
    const credit: CreditData = {
      accountId: transaction.accountId,
      operationId: operationIds.refund(id, plan.refund),
      amount: amount.toString(),
      currency: transaction.currency,
      cause: cause(id),
    };
    await this.ledger(subjects.accounts.ledger.credit, credit, context);
    const refundId = refundIdOf(id, plan.refund);
    const state = await this.decide(id, context, (current) =>
      returnCardTransaction(
        {
          type: 'ReturnCardTransaction',
          data: { cardTransactionId: id, platformId: context.platformId, cardId: card.id, refundId, plan },
          metadata: { now: this.clock.now() },
        },
        current,
      ),
    );
    return renderCardTransaction(state);
  }

  /**
   * From the card_transactions read model (every simulator reply waits for it, so a GET after one
   * sees it). A delayed pull shows PENDING until the CardPullTimer's sweep confirms it.
   */
  @MessagePattern(cardTransactionSubjects.get)
  async get(@Payload() request: ServiceRequest<GetCardTransactionData>): Promise<CardTransactionWire> {
    const { cardTransactionId } = request.data;
    const row =
      typeof cardTransactionId === 'string' && cardTransactionId.length > 0
        ? await this.eventSourcing.em.findOne(
            CardTransactionEntity,
            { id: cardTransactionId, platformId: request.context.platformId },
            { fields: ['state'] },
          )
        : null;
    if (!row)
      throw new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Card transaction ${String(cardTransactionId)} does not exist.`, {});
    return renderCardTransaction(loadCardTransaction(row.state));
  }

  private async requireCard(cardId: unknown, context: RequestContext): Promise<CardForTransactions> {
    if (typeof cardId !== 'string' || cardId.length === 0) throw invalidInput('cardId must name a card.', { field: 'id' });
    const card = await this.cards.get(cardId, context.platformId);
    if (!card) throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Card ${cardId} does not exist.`, { cardId });
    return card;
  }

  /** The transaction as it stands, with a delayed pull confirmed if its time has come. */
  private async current(cardTransactionId: unknown, context: RequestContext, cardId: string): Promise<OpenCardTransaction> {
    if (typeof cardTransactionId !== 'string' || cardTransactionId.length === 0)
      throw invalidInput('cardTransactionId must name a card transaction.', { field: 'cardTransactionId' });
    const state = requireCardTransaction(await this.load(cardTransactionId), cardTransactionId, context.platformId, cardId);
    return this.confirmDuePull(state, context);
  }

  private async confirmDuePull(state: OpenCardTransaction, context: RequestContext): Promise<OpenCardTransaction> {
    if (state.pullDueAt === undefined || this.clock.now().getTime() < Date.parse(state.pullDueAt)) return state;
    return this.decide(state.id, context, (current) =>
      confirmPendingPull(
        { type: 'ConfirmPendingPull', data: { cardTransactionId: state.id }, metadata: { now: this.clock.now() } },
        current,
      ),
    );
  }

  /** Asks each funding source of the plan for its hold in turn; returns the account that took it (planAuthorization says which next). */
  private async holdOnFirstSource(context: RequestContext, plan: AuthorizationPlan): Promise<string> {
    for (let refused = 0; ; refused += 1) {
      const hold = nextHold(plan, refused);
      try {
        await this.ledger(subjects.accounts.ledger.hold, hold, context);
        return hold.accountId;
      } catch (error) {
        if (!cannotPay(error)) throw error;
      }
    }
  }

  /** Debits what a clearing exceeds the hold by; a refusal for funds is the EXCEPTION path, not an error. */
  private async pullAfterTheFact(
    transaction: OpenCardTransaction,
    clearing: number,
    amount: bigint,
    context: RequestContext,
  ): Promise<{ status: 'CONFIRMED' } | { status: 'FAILED'; reason: string }> {
    const debit: DebitData = {
      accountId: transaction.accountId,
      operationId: operationIds.pull(transaction.id, clearing),
      amount: amount.toString(),
      currency: transaction.currency,
      cause: cause(transaction.id),
      cardId: transaction.cardId,
    };
    try {
      await this.ledger(subjects.accounts.ledger.debit, debit, context);
      return { status: 'CONFIRMED' };
    } catch (error) {
      if (cannotPay(error)) return { status: 'FAILED', reason: error.code };
      throw error;
    }
  }

  private ledger<Data>(subject: string, data: Data, context: RequestContext): Promise<InternalAccountWire> {
    return this.client.request<InternalAccountWire>(subject, data, { context, timeoutMs: LEDGER_TIMEOUT_MS });
  }

  private async load(cardTransactionId: string): Promise<CardTransaction> {
    return (await this.eventSourcing.load(cardTransactionId, cardTransactionDecider)).state;
  }

  private async decide(
    cardTransactionId: string,
    context: RequestContext,
    decide: (state: CardTransaction) => CardTransactionEvent[],
  ): Promise<OpenCardTransaction> {
    const { state } = await this.eventSourcing.handle(cardTransactionId, cardTransactionDecider, decide, context);
    if (state.kind === 'None') throw new RangeError(`Card transaction ${cardTransactionId} has no events after a decision.`);
    return state;
  }
}
