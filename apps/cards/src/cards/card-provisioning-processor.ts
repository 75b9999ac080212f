import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, newUuid, type RequestContext } from '@corridor/contracts';
import { EventSourcing, PeriodicSweep, resumedContext } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { runWithContext } from '@corridor/telemetry';
import { cardDecider, type CardView } from './card';
import { CARD_ISSUER, type CardIssuer, type IssueRequest } from './card-issuer';
import { CARD_OPTIONS, type CardOptions } from './card-options';
import { CardProvisioningEntity } from './card-provisioning.projection';
import { type ProvisionCard, provisionCard } from './provision-card';

/** Cards checked per sweep; a backlog drains over the following sweeps. */
const SWEEP_BATCH = 200;

const systemContext = (platformId: string): RequestContext => {
  const requestId = newUuid();
  return { platformId, actor: { kind: 'system', name: 'card-issuer' }, requestId, correlationId: requestId };
};

/** The issuer request a card was issued with, rebuilt from the card (its suffix rule needs the platformCardId as sent). */
export const issueRequestOf = (card: CardView): IssueRequest => ({
  cardId: card.id,
  cardholderId: card.cardholderId,
  ...(card.platformCardIdGenerated ? {} : { platformCardId: card.platformCardId }),
  requestedAt: new Date(card.createdAt),
});

/**
 * Finishes provisioning: asks the issuer about each PENDING_ISSUE card whose check is due (the
 * card_provisioning table, swept every CARD_PROVISIONING_SWEEP_SECONDS on the service's clock)
 * and records the answer (provision-card.ts). A new card is also checked right after its issue.
 * Because the due time is persisted, a card whose provisioning was under way when cards stopped
 * is picked up by the first sweep after the restart; asking the issuer twice is harmless.
 */
@Injectable()
export class CardProvisioningProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('cards:provisioning');
  private readonly sweeper = new PeriodicSweep(
    () => this.provisionDue(),
    (error) => this.logger.error({ err: error }, 'Card provisioning sweep failed; the next sweep tries again.'),
  );
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(CARD_ISSUER) private readonly issuer: CardIssuer,
    @Inject(CARD_OPTIONS) private readonly options: CardOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.provisioningSweepSeconds * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.sweeper.stop(), ...this.inFlight]);
  }

  /** Checks one card in the background (right after its issue); a failure is left to the sweep. */
  kick(cardId: string, platformId: string): void {
    const step = this.provision(cardId, platformId).catch((error: unknown) =>
      this.logger.warn({ cardId, err: error }, 'Card provisioning will be retried by the sweep.'),
    );
    this.inFlight.add(step);
    void step.finally(() => this.inFlight.delete(step));
  }

  /** Checks every card due at the clock's now (up to a batch); returns how many events were appended. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  /** One check of one card at the clock's time; returns how many events it appended. */
  async provision(cardId: string, platformId: string): Promise<number> {
    const now = this.clock.now();
    const { state, events: recorded } = await this.eventSourcing.load(cardId, cardDecider);
    if (
      state.kind !== 'Exists' ||
      state.card.state !== 'PENDING_ISSUE' ||
      state.provisioningCheckAt === null ||
      now.getTime() < Date.parse(state.provisioningCheckAt)
    )
      return 0;
    const issuer = await this.issuer.provisioningStatus(issueRequestOf(state.card), now);
    const command: ProvisionCard = { type: 'ProvisionCard', data: { cardId, issuer }, metadata: { now } };
    // The check goes on with the card's story (the issue request's correlation), caused by its last event.
    const context = resumedContext(systemContext(platformId), recorded[recorded.length - 1]);
    const { events } = await runWithContext(context, () =>
      this.eventSourcing.handle(cardId, cardDecider, (current) => provisionCard(command, current), context, { skipProjectionWait: true }),
    );
    return events.length;
  }

  private async provisionDue(): Promise<number> {
    const due = await this.eventSourcing.em.find(
      CardProvisioningEntity,
      { state: 'PENDING_ISSUE', dueAt: { $lte: this.clock.now() } },
      { orderBy: { dueAt: 'asc' }, limit: SWEEP_BATCH, fields: ['id', 'platformId'] },
    );
    let appended = 0;
    for (const { id, platformId } of due) {
      // One card the issuer cannot answer for must not hold back the others.
      appended += await this.provision(id, platformId).catch((error: unknown) => {
        this.logger.warn({ cardId: id, err: error }, 'Card could not be provisioned; the next sweep retries.');
        return 0;
      });
    }
    return appended;
  }
}
