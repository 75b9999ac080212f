import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, newUuid, type RequestContext } from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { runWithContext } from '@corridor/telemetry';
import { expireIncomingApproval } from './incoming-approval';
import { INCOMING_OPTIONS, type IncomingOptions } from './incoming-options';
import { type IncomingPhase, incomingPaymentDecider } from './incoming-payment';
import { IncomingSettlement } from './incoming-settlement';
import { IncomingTimerEntity } from './incoming-timer.projection';

/** Payments handled per sweep; a backlog (after downtime) drains over the following sweeps. */
const SWEEP_BATCH = 200;

/**
 * Acts on incoming payments whose timer fell due (the incoming_payment_timers read model, so it
 * survives restarts): an approval hook unanswered or a window unused fails the payment
 * (expireIncomingApproval decides, on the clock's time), and a deposit not yet confirmed is made
 * again (idempotent by operation id). Sweeping early, twice or from two replicas changes nothing.
 */
@Injectable()
export class IncomingTimerJob implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('payments:incoming-timer');
  private readonly sweeper = new PeriodicSweep(
    () => this.handleDue(),
    (error) => this.logger.warn({ err: error }, 'Incoming payment sweep failed.'),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly settlement: IncomingSettlement,
    @Inject(INCOMING_OPTIONS) private readonly options: IncomingOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.sweepMs);
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** Handles every payment due at the clock's now (up to a batch); returns how many changed. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  private async handleDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.eventSourcing.em.find(
      IncomingTimerEntity,
      { phase: { $ne: 'DONE' }, dueAt: { $lte: now } },
      { orderBy: { dueAt: 'asc' }, limit: SWEEP_BATCH, fields: ['id', 'platformId', 'phase'] },
    );
    let changed = 0;
    for (const { id, platformId, phase } of due) {
      const requestId = newUuid();
      const tick: RequestContext = { platformId, actor: { kind: 'system', name: 'incoming-timer' }, requestId, correlationId: requestId };
      try {
        // The timer goes on with the payment's story (its correlation), caused by its last event.
        const context = await this.eventSourcing.resumeStory(id, tick);
        changed += await runWithContext(context, () => this.handleOne(id, phase, now, context));
      } catch (error) {
        this.logger.warn({ err: error, transactionId: id }, 'An incoming payment timer could not be handled; the next sweep retries it.');
      }
    }
    return changed;
  }

  private async handleOne(id: string, phase: IncomingPhase, now: Date, context: RequestContext): Promise<number> {
    const { state, events } = await this.eventSourcing.handle(
      id,
      incomingPaymentDecider,
      (current) => expireIncomingApproval({ type: 'ExpireIncomingApproval', data: { transactionId: id }, metadata: { now } }, current),
      context,
    );
    if (phase !== 'SETTLING') return events.length;
    const after = await this.settlement.settle(state, context);
    return events.length + (after !== state ? 1 : 0);
  }
}
