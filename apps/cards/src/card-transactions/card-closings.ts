import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  type CardTransactionWire,
  cardTransactionSubjects,
  newUuid,
  type RequestContext,
  type SimulateCardClearingData,
} from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { CARD_TRANSACTION_OPTIONS, type CardTransactionOptions } from './card-transaction-options';

/** Transactions expired per sweep; a backlog drains over the following sweeps. */
const SWEEP_BATCH = 200;
const EXPIRY_TIMEOUT_MS = 10_000;

/** The open authorizations of closed cards: what a close must give back. */
const OPEN_ON_CLOSED_CARDS = `SELECT ct.id, ct.platform_id, ct.card_id
  FROM cards.card_transactions ct JOIN cards.cards c ON c.id = ct.card_id AND c.platform_id = ct.platform_id
  WHERE c.state = 'CLOSED' AND ct.status IN ('AUTHORIZED', 'PARTIALLY_SETTLED') AND ($1::text IS NULL OR ct.card_id = $1)
  ORDER BY ct.created_at LIMIT ${SWEEP_BATCH}`;

const systemContext = (platformId: string): RequestContext => {
  const requestId = newUuid();
  return { platformId, actor: { kind: 'system', name: 'card-closing' }, requestId, correlationId: requestId };
};

/**
 * A closed card's authorizations that were never cleared hold money no merchant will take any
 * more: closing a card expires them (a clearing of 0, which releases what each still holds), so
 * the funding account gets its money back. The PATCH that closes a card does it for that card
 * before it answers; a sweep on the service clock does it for any close whose expiry did not
 * finish (a crash between the close and the releases), so no hold outlives its card for good.
 * Each expiry is the clearing simulator's own path over NATS, idempotent by transaction and step.
 */
@Injectable()
export class CardClosings implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('cards:closings');
  private readonly sweeper = new PeriodicSweep(
    () => this.expireOpen(),
    (error) => this.logger.error({ err: error }, 'Closed-card sweep failed; the next sweep tries again.'),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(CARD_TRANSACTION_OPTIONS) private readonly options: CardTransactionOptions,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.pullSweepSeconds * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  /** Expires the open authorizations of closed cards (all, or one card's); returns how many it expired. */
  async expireOpen(cardId?: string): Promise<number> {
    const open = await this.eventSourcing.read<{ id: string; platform_id: string; card_id: string }>(
      'open-on-closed-cards',
      OPEN_ON_CLOSED_CARDS,
      [cardId ?? null],
    );
    let expired = 0;
    // Each expiry goes on with the story of its card's close (the PATCH's correlation), caused by the card's last event.
    const stories = new Map<string, Promise<RequestContext>>();
    for (const row of open) {
      const data: SimulateCardClearingData = { cardId: row.card_id, cardTransactionId: row.id, amount: '0' };
      try {
        const story = stories.get(row.card_id) ?? this.eventSourcing.resumeStory(row.card_id, systemContext(row.platform_id));
        stories.set(row.card_id, story);
        const context = await story;
        await this.client.request<CardTransactionWire>(cardTransactionSubjects.clear, data, { context, timeoutMs: EXPIRY_TIMEOUT_MS });
        expired += 1;
      } catch (error) {
        // One transaction that cannot be expired now must not hold back the others; the sweep retries it.
        this.logger.warn(
          { cardTransactionId: row.id, cardId: row.card_id, err: error },
          'A card transaction of a closed card could not be expired; the next sweep retries.',
        );
      }
    }
    return expired;
  }
}
