import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, newUuid, type RequestContext } from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { runWithContext } from '@corridor/telemetry';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { transactionDecider } from '../transactions/transaction';
import { type ExpireQuote, expireQuote } from './expire-quote';
import { QuoteEntity } from './quote-view.projection';

/** Quotes expired per sweep; a backlog (after downtime) drains over the following sweeps. */
const SWEEP_BATCH = 200;

/**
 * Expires PENDING quotes whose time has passed. The timer is the quotes read model itself (its
 * expires_at), so it survives restarts: a service that was down expires what fell due meanwhile on
 * its first sweep. The decision is expireQuote's, on the command's time, so sweeping early, twice,
 * or from two replicas at once changes nothing.
 */
@Injectable()
export class QuoteExpiryJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('payments:quote-expiry');
  private readonly sweeper = new PeriodicSweep(
    () => this.expireDue(),
    (error) => this.logger.error({ err: error }, 'Quote expiry sweep failed; the next sweep tries again.'),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(PAYMENTS_OPTIONS) private readonly options: PaymentsOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.expirySweepSeconds * 1000);
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** Expires every quote due at the clock's now (up to a batch); returns how many it expired. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  private async expireDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.eventSourcing.em.find(
      QuoteEntity,
      { status: 'PENDING', expiresAt: { $lte: now } },
      { orderBy: { expiresAt: 'asc' }, limit: SWEEP_BATCH, fields: ['transactionId', 'platformId'] },
    );
    let expired = 0;
    for (const { transactionId, platformId } of due) {
      const requestId = newUuid();
      const command: ExpireQuote = { type: 'ExpireQuote', data: { transactionId }, metadata: { now } };
      // The expiry goes on with the quote's story (its create request's correlation), caused by its last event.
      const tick: RequestContext = { platformId, actor: { kind: 'system', name: 'quote-expiry' }, requestId, correlationId: requestId };
      const context = await this.eventSourcing.resumeStory(transactionId, tick);
      const { events } = await runWithContext(context, () =>
        this.eventSourcing.handle(transactionId, transactionDecider, (state) => expireQuote(command, state), context),
      );
      expired += events.length;
    }
    return expired;
  }
}
