import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  type CreditData,
  DomainError,
  newUuid,
  type ReleaseHoldData,
  type RequestContext,
  type SettleHoldData,
  subjects,
} from '@corridor/contracts';
import { EventSourcing, PeriodicSweep, resumedContext } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { type Transaction, transactionDecider } from '../transactions/transaction';
import { type AdvanceTransfer, advanceTransfer, type LedgerStep, ledgerStepOf } from './advance-transfer';
import { TRANSFER_OPTIONS, type TransferOptions } from './transfer-options';
import { TransferTimerEntity } from './transfer-timer.projection';

const LEDGER_TIMEOUT_MS = 10_000;
/** Transfers advanced per sweep; a backlog drains over the following sweeps. */
const SWEEP_BATCH = 200;

export const systemContext = (platformId: string, name: string): RequestContext => {
  const requestId = newUuid();
  return { platformId, actor: { kind: 'system', name }, requestId, correlationId: requestId };
};

/**
 * Carries transfers along the sandbox rail. Each step is decided by advanceTransfer at the
 * clock's time; the money moves first (settle or release the hold, or credit the account, each
 * idempotent by an operation id derived from the transaction id) and the events are appended
 * after, so a crash in between repeats a no-op movement and never loses or doubles money. The
 * timer is the transfers table (due_at), swept every TRANSFER_SWEEP_SECONDS, so a restart picks
 * up whatever fell due while the service was down; a new transfer is also advanced at once.
 */
@Injectable()
export class TransferProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('payments:transfer-processor');
  private readonly sweeper = new PeriodicSweep(
    () => this.advanceDue(),
    (error) => this.logger.error({ err: error }, 'Transfer sweep failed; the next sweep tries again.'),
  );
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(TRANSFER_OPTIONS) private readonly options: TransferOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.sweepSeconds * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.sweeper.stop(), ...this.inFlight]);
  }

  /** Advances one transfer in the background (right after it is created); a failure is left to the sweep. */
  kick(transactionId: string, platformId: string): void {
    const step = this.advance(transactionId, platformId).catch((error: unknown) =>
      this.logger.warn({ err: error, transactionId }, 'A transfer could not advance; the sweep retries it.'),
    );
    this.inFlight.add(step);
    void step.finally(() => this.inFlight.delete(step));
  }

  /** Advances every transfer due at the clock's now (up to a batch); returns how many events were appended. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  /** One step of one transfer at the clock's time; returns how many events it appended. */
  async advance(transactionId: string, platformId: string): Promise<number> {
    const command: AdvanceTransfer = {
      type: 'AdvanceTransfer',
      data: { transactionId },
      metadata: { now: this.clock.now(), pendingSeconds: this.options.pendingSeconds },
    };
    const stored = await this.eventSourcing.load(transactionId, transactionDecider);
    // The transfer's story (the request that created it) goes on, caused by its last recorded event.
    const context = resumedContext(systemContext(platformId, 'transfer-rail'), stored.events[stored.events.length - 1]);
    const { state } = stored;
    const decided = advanceTransfer(command, state);
    if (decided.length === 0) return 0;
    const moved = await this.moveMoney(state, ledgerStepOf(state, decided), context);
    // Nothing is held to settle: the transfer fails instead of completing (and moves nothing).
    const step: AdvanceTransfer = moved === 'hold-released' ? { ...command, data: { ...command.data, holdReleased: true } } : command;
    const { events } = await this.eventSourcing.handle(
      transactionId,
      transactionDecider,
      (current) => advanceTransfer(step, current),
      context,
    );
    return events.length;
  }

  private async advanceDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.eventSourcing.em.find(
      TransferTimerEntity,
      { status: { $in: ['PENDING', 'PROCESSING'] }, dueAt: { $lte: now } },
      { orderBy: { dueAt: 'asc' }, limit: SWEEP_BATCH, fields: ['id', 'platformId'] },
    );
    let appended = 0;
    for (const { id, platformId } of due) {
      // One transfer whose ledger call fails (accounts down) must not hold back the others.
      appended += await this.advance(id, platformId).catch((error: unknown) => {
        this.logger.warn({ err: error, transactionId: id }, 'A transfer could not advance; the next sweep retries it.');
        return 0;
      });
    }
    return appended;
  }

  private async moveMoney(state: Transaction, step: LedgerStep, context: RequestContext): Promise<'moved' | 'hold-released'> {
    if (state.kind !== 'Transfer' || step === 'none') return 'moved';
    const { transfer } = state;
    const request = <Reply>(subject: string, data: unknown) =>
      this.client.request<Reply>(subject, data, { context, timeoutMs: LEDGER_TIMEOUT_MS });
    const holdId = transfer.holdId ?? transfer.transactionId;
    switch (step) {
      case 'settle-hold':
        try {
          await request(subjects.accounts.ledger.settle, {
            accountId: transfer.internalAccountId,
            operationId: `${transfer.transactionId}:settle`,
            holdId,
          } satisfies SettleHoldData);
        } catch (error) {
          // Settling is only ever asked once the rail delivered, so a closed or missing hold was
          // released (the create failed after holding, and a retry under the same key reopened it).
          if (error instanceof DomainError && (error.code === 'HOLD_ALREADY_CLOSED' || error.code === 'HOLD_NOT_FOUND'))
            return 'hold-released';
          throw error;
        }
        return 'moved';
      case 'release-hold':
        await request(subjects.accounts.ledger.release, {
          accountId: transfer.internalAccountId,
          operationId: `${transfer.transactionId}:release`,
          holdId,
        } satisfies ReleaseHoldData);
        return 'moved';
      case 'credit':
        await request(subjects.accounts.ledger.credit, {
          accountId: transfer.internalAccountId,
          operationId: `${transfer.transactionId}:credit`,
          amount: transfer.amount,
          currency: transfer.currency,
          cause: { kind: 'TRANSFER', id: transfer.transactionId },
        } satisfies CreditData);
        return 'moved';
    }
  }
}
