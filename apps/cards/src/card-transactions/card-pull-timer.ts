import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, newUuid, type RequestContext } from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { runWithContext } from '@corridor/telemetry';
import { type CardTransaction, cardTransactionDecider, type CardTransactionEvent, confirmPendingPull } from './card-transaction';
import { CARD_TRANSACTION_OPTIONS, type CardTransactionOptions } from './card-transaction-options';
import { CardTransactionEntity } from './card-transaction-view.projection';

/** Transactions confirmed per sweep; a backlog drains over the following sweeps. */
const SWEEP_BATCH = 200;

const systemContext = (platformId: string): RequestContext => {
  const requestId = newUuid();
  return { platformId, actor: { kind: 'system', name: 'card-network' }, requestId, correlationId: requestId };
};

/**
 * Confirms the sandbox's delayed pulls (descriptor suffix 005) once they fall due on the service
 * clock: sweeps card_transactions.due_at every CARD_PULL_SWEEP_SECONDS and records PullConfirmed.
 * The money was held at the authorization, so the confirmation moves nothing; it only changes
 * what the transaction shows (pullSummary.pendingCount 1 → 0). The due time is persisted, so a
 * pull pending when cards stopped is confirmed by the first sweep after the restart; confirming
 * twice is impossible (the decider answers an already confirmed pull with nothing).
 */
@Injectable()
export class CardPullTimer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('cards:pull-timer');
  private readonly sweeper = new PeriodicSweep(
    () => this.confirmDue(),
    (error) => this.logger.error({ err: error }, 'Card pull sweep failed; the next sweep tries again.'),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(CARD_TRANSACTION_OPTIONS) private readonly options: CardTransactionOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.pullSweepSeconds * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  /** Confirms every pull due at the clock's now (up to a batch); returns how many events were appended. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  /** Confirms one transaction's pull if it is due at the clock's time; returns how many events it appended. */
  async confirm(cardTransactionId: string, platformId: string): Promise<number> {
    const now = this.clock.now();
    // The confirmation goes on with the transaction's story (the authorization's correlation), caused by its last event.
    const context = await this.eventSourcing.resumeStory(cardTransactionId, systemContext(platformId));
    const { events } = await runWithContext(context, () =>
      this.eventSourcing.handle(
        cardTransactionId,
        cardTransactionDecider,
        (current: CardTransaction): CardTransactionEvent[] =>
          confirmPendingPull({ type: 'ConfirmPendingPull', data: { cardTransactionId }, metadata: { now } }, current),
        context,
        { skipProjectionWait: true },
      ),
    );
    return events.length;
  }

  private async confirmDue(): Promise<number> {
    const due = await this.eventSourcing.em.find(
      CardTransactionEntity,
      { dueAt: { $lte: this.clock.now() } },
      { orderBy: { dueAt: 'asc' }, limit: SWEEP_BATCH, fields: ['id', 'platformId'] },
    );
    let appended = 0;
    for (const { id, platformId } of due) {
      // One transaction that cannot be confirmed must not hold back the others.
      appended += await this.confirm(id, platformId).catch((error: unknown) => {
        this.logger.warn({ cardTransactionId: id, err: error }, 'A delayed card pull could not be confirmed; the next sweep retries.');
        return 0;
      });
    }
    return appended;
  }
}
