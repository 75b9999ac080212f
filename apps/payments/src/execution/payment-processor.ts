import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock, DomainError, newUuid, type RequestContext, subjects, type TransactionRecord } from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { currentContext, runWithContext, type TelemetryContext } from '@corridor/telemetry';
import { type Transaction, transactionDecider } from '../transactions/transaction';
import { type AdvanceExecution, advanceExecution, type StepResult } from './advance-execution';
import type { ExecutionState } from '../transactions/execution-events';
import { EXECUTION_OPTIONS, type ExecutionOptions } from './execution-options';
import { PaymentExecutionEntity } from './payment-execution.projection';
import { railDelayOf, railFailureOf } from '../transactions/payout-rail';

type Quoted = Extract<Transaction, { kind: 'Quoted' }>;

const LEDGER_TIMEOUT_MS = 10_000;
/**
 * How long an execute waits for its payment's hold before answering PROCESSING anyway (accounts
 * slow or down; the sweep keeps retrying the hold). Below the gateway's 5 s deadline for the whole request.
 */
export const EXECUTE_HOLD_WAIT_MS = 3_000;
/** Payments one sweep picks up; a backlog (after downtime) drains over the following sweeps. */
const SWEEP_BATCH = 500;
/** Payments driven at once from one sweep, so a backlog does not flood the accounts service. */
const SWEEP_CONCURRENCY = 16;
/** Steps one drive runs before yielding to the sweep (a payment has at most six). */
const MAX_STEPS = 8;

const systemAccount = (kind: 'PAYOUT_RAIL' | 'FX' | 'FUNDING_RAIL', currency: string): string => `SystemAccount:${kind}:${currency}`;
const isInternal = (accountId: string): boolean => accountId.startsWith('InternalAccount:');

/**
 * The process manager of outgoing payments. Each executed payment's stream says which step is
 * next and from when (ExecutionState); this runs the step's effect — a ledger operation whose
 * operationId is the transaction id plus the step, so the accounts service applies it once however
 * often it is sent — and records the result with AdvanceExecution, which ignores a step already
 * recorded. Steps run at once when a payment is executed (kick); the payment_executions read model
 * is the persisted timer a sweep reads, which resumes every payment after a crash or restart and
 * wakes the ones waiting on the rail's clock.
 */
@Injectable()
export class PaymentProcessor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('payments:payment-processor');
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly wakeups = new Map<string, NodeJS.Timeout>();
  private readonly sweeper = new PeriodicSweep(
    () => this.driveDue(),
    (error) => this.logger.warn({ err: error }, 'Payment execution sweep failed; the next sweep tries again.'),
  );
  private stopped = false;

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(EXECUTION_OPTIONS) private readonly options: ExecutionOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.sweepMs);
    void this.sweep().catch((error: unknown) =>
      this.logger.warn({ err: error }, 'The first payment execution sweep after start failed; the periodic sweep retries.'),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const wakeup of this.wakeups.values()) clearTimeout(wakeup);
    await this.sweeper.stop();
    // Each drive logs its own failure where it is started; shutdown only waits for them to end.
    await Promise.all([...this.running.values()].map((drive) => drive.catch(() => undefined)));
  }

  /**
   * Drives one payment as far as it can go now; one drive per payment at a time in this process.
   * known: the payment's state as the caller's append just left it, which spares the drive reading
   * the stream (the drive's own append re-reads it and records only what is still due).
   * firstStepDone: called once the drive's first step has had its effect (or failed, or there was none).
   */
  kick(transactionId: string, platformId: string, known?: Transaction, firstStepDone?: () => void): Promise<void> {
    const current = this.running.get(transactionId);
    if (current) {
      this.again.add(transactionId);
      return current;
    }
    const drive = this.drive(transactionId, platformId, known, firstStepDone)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, transactionId }, 'A payment stopped at a step and will be retried by the sweep.'),
      )
      .finally(() => {
        this.running.delete(transactionId);
        if (this.again.delete(transactionId) && !this.stopped) void this.kick(transactionId, platformId);
      });
    this.running.set(transactionId, drive);
    return drive;
  }

  /**
   * Starts a payment that was just executed and resolves once its first step's effect is done: for
   * a payment from an internal account, the hold is placed and the accounts read model shows it
   * (the ledger answers only then), so a client told PROCESSING sees the funds held (decision 0008,
   * amendment "The execute answers after the hold"). The rest of the drive (rail, settle, the
   * append) goes on after. Bounded by waitMs: an accounts outage delays the hold, not the answer
   * past the gateway's deadline; the sweep keeps retrying it.
   */
  startExecuted(transactionId: string, platformId: string, known: Transaction, waitMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      // A drive already running (a sweep that found the row) performs the hold too: its end is the signal.
      void this.kick(transactionId, platformId, known, done).then(done);
    });
  }

  /** Drives every payment whose next step is due (up to a batch); returns how many it looked at. */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  private async driveDue(): Promise<number> {
    const due = await this.eventSourcing.em.find(
      PaymentExecutionEntity,
      { step: { $ne: 'DONE' }, dueAt: { $lte: this.clock.now() } },
      { orderBy: { dueAt: 'asc' }, limit: SWEEP_BATCH, fields: ['transactionId', 'platformId'] },
    );
    const queue = [...due];
    const worker = async (): Promise<void> => {
      for (let row = queue.shift(); row && !this.stopped; row = queue.shift()) await this.kick(row.transactionId, row.platformId);
    };
    await Promise.all(Array.from({ length: Math.min(SWEEP_CONCURRENCY, due.length) }, worker));
    return due.length;
  }

  /**
   * Performs every step that is due now, then records them all in one append: the decider is pure,
   * so the state after each step is known before it is stored. A crash before the append repeats
   * the steps' ledger operations on restart, which the accounts service applies once.
   */
  private async drive(
    transactionId: string,
    platformId: string,
    known: Transaction | undefined,
    firstStepDone?: () => void,
  ): Promise<void> {
    try {
      await this.driveSteps(transactionId, platformId, known, firstStepDone);
    } finally {
      firstStepDone?.();
    }
  }

  /**
   * Runs the drive in the story of the payment: the execute request's when it kicks the drive, else
   * (a sweep, a restart) the one its stream's last event recorded, with that event as the cause.
   * Every ledger request, event and log line of the drive then carries the HTTP request's correlation.
   */
  private async driveSteps(
    transactionId: string,
    platformId: string,
    known: Transaction | undefined,
    firstStepDone?: () => void,
  ): Promise<void> {
    const loaded = known ? { state: known, origin: undefined } : await this.load(transactionId);
    const ids = driveContext(platformId, transactionId, loaded.origin ?? currentContext());
    const context: RequestContext = { platformId, actor: { kind: 'system', name: 'payment-execution' }, ...ids };
    await runWithContext(ids, () => this.runSteps(transactionId, platformId, loaded.state, context, firstStepDone));
  }

  private async runSteps(
    transactionId: string,
    platformId: string,
    loaded: Transaction,
    context: RequestContext,
    firstStepDone?: () => void,
  ): Promise<void> {
    let state = loaded;
    const done: AdvanceExecution[] = [];
    // Ledger operations this drive already did ahead of their step (an instant rail's settle, done with the hold).
    const doneAhead = new Set<string>();
    let waitMs = 0;
    let failure: unknown;
    for (let steps = 0; steps < MAX_STEPS && !this.stopped; steps += 1) {
      if (state.kind !== 'Quoted' || !state.execution || state.execution.step === 'DONE') break;
      const wait = Date.parse(state.execution.dueAt) - this.clock.now().getTime();
      if (wait > 0) {
        waitMs = wait;
        break;
      }
      let result: StepResult;
      try {
        result = await this.perform(state, state.execution, context, doneAhead);
      } catch (error) {
        // Record the steps done so far; the sweep retries this one.
        failure = error;
        break;
      } finally {
        if (steps === 0) firstStepDone?.();
      }
      const command: AdvanceExecution = {
        type: 'AdvanceExecution',
        data: { transactionId, step: state.execution.step, result },
        metadata: { now: this.clock.now(), delays: this.options.delays },
      };
      state = advanceExecution(command, state).reduce(transactionDecider.evolve, state);
      done.push(command);
    }
    if (done.length > 0) {
      await this.eventSourcing.handle(
        transactionId,
        transactionDecider,
        (current) => {
          // Each command on the state the previous one left; one already recorded (by another driver) adds nothing.
          let after = current;
          return done.flatMap((command) => {
            const events = advanceExecution(command, after);
            after = events.reduce(transactionDecider.evolve, after);
            return events;
          });
        },
        context,
        // Nothing here reads the read models back; the sweep tolerates a row that lags (it re-reads the stream).
        { skipProjectionWait: true },
      );
    }
    if (failure !== undefined) throw failure;
    // Waiting on the rail: wake up then if that is sooner than the sweep would.
    if (waitMs > 0 && waitMs < this.options.sweepMs * 2) this.wakeAt(transactionId, platformId, waitMs);
  }

  private wakeAt(transactionId: string, platformId: string, delayMs: number): void {
    if (this.wakeups.has(transactionId) || this.stopped) return;
    const wakeup = setTimeout(() => {
      this.wakeups.delete(transactionId);
      void this.kick(transactionId, platformId);
    }, delayMs + 5);
    wakeup.unref();
    this.wakeups.set(transactionId, wakeup);
  }

  private async load(transactionId: string): Promise<{ state: Transaction; origin: DriveOrigin | undefined }> {
    const { state, events } = await this.eventSourcing.load(transactionId, transactionDecider);
    const last = events[events.length - 1];
    return { state, origin: last && { correlationId: last.metadata.correlationId, causationId: last.eventId } };
  }

  /** The step's effect on the ledger, and what to record of it. Anything but a refusal of the hold throws, and the step is retried. */
  private async perform(state: Quoted, execution: ExecutionState, context: RequestContext, doneAhead: Set<string>): Promise<StepResult> {
    const transaction = state.transaction;
    switch (execution.step) {
      case 'HOLD':
        return this.holdStep(transaction, execution, context, doneAhead);
      case 'AWAIT_RETURN':
        return { kind: 'DUE' };
      case 'AWAIT_RAIL':
        return this.payoutStep(transaction, execution, context, doneAhead);
      case 'REFUND':
        await this.refundStep(transaction, execution, context);
        return { kind: 'REFUNDED' };
      default:
        throw new Error(`Payment ${transaction.id} has no effect for step ${execution.step}.`);
    }
  }

  /** HOLD: reserve the sending amount; an instant rail whose payout completes settles the hold at once, one ledger request for both. */
  private async holdStep(
    transaction: TransactionRecord,
    execution: ExecutionState,
    context: RequestContext,
    doneAhead: Set<string>,
  ): Promise<StepResult> {
    const settlesAtOnce =
      railDelayOf(execution.rail, this.options.delays) === 0 && execution.rail !== 'CANCELLED' && !railFailureOf(execution.rail);
    const settleOperationId = settlesAtOnce ? `${transaction.id}:settle` : undefined;
    const result = await this.hold(transaction, context, settleOperationId);
    if (settleOperationId !== undefined && result.kind === 'HELD') doneAhead.add(settleOperationId);
    return result;
  }

  /** AWAIT_RAIL: a completed payout takes the held money and credits an internal destination; failed and cancelled ones wait for REFUND. */
  private async payoutStep(
    transaction: TransactionRecord,
    execution: ExecutionState,
    context: RequestContext,
    doneAhead: Set<string>,
  ): Promise<StepResult> {
    const transactionId = transaction.id;
    if (execution.rail === 'CANCELLED' || railFailureOf(execution.rail)) return { kind: 'DUE' };
    // Settled with the hold in this drive, or (after a crash, or by the sweep) asked again: the operation id makes a repeat a no-op.
    if (execution.funding === 'ACCOUNT' && !doneAhead.has(`${transactionId}:settle`))
      await this.ledger(
        subjects.accounts.ledger.settle,
        { accountId: sourceAccountOf(transaction), operationId: `${transactionId}:settle`, holdId: transactionId },
        context,
      );
    const destination = transaction.destination;
    if (destination.destinationType === 'ACCOUNT' && isInternal(destination.accountId)) {
      await this.ledger(
        subjects.accounts.ledger.credit,
        {
          accountId: destination.accountId,
          operationId: `${transactionId}:credit`,
          amount: transaction.receivedAmount.value,
          currency: transaction.receivedAmount.currency,
          cause: { kind: 'TRANSACTION', id: transactionId },
          counterAccountId: systemAccount(execution.funding === 'ACCOUNT' ? 'FX' : 'FUNDING_RAIL', transaction.receivedAmount.currency),
        },
        context,
      );
    }
    return { kind: 'SETTLED' };
  }

  /** REFUND: the refund method's ledger operation (none when the funds never reached the ledger). */
  private async refundStep(transaction: TransactionRecord, execution: ExecutionState, context: RequestContext): Promise<void> {
    const transactionId = transaction.id;
    const accountId = execution.funding === 'ACCOUNT' ? sourceAccountOf(transaction) : '';
    switch (execution.refundMethod) {
      case 'RELEASE_HOLD':
        await this.ledger(
          subjects.accounts.ledger.release,
          { accountId, operationId: `${transactionId}:release`, holdId: transactionId },
          context,
        ).catch((error: unknown) => {
          // Nothing was held (the hold never reached the ledger): nothing to give back.
          if (!(error instanceof DomainError && error.code === 'HOLD_NOT_FOUND')) throw error;
        });
        return;
      case 'SETTLE_TO_RAIL':
        // 007: the payout left and the rail failed to return it; the funds stay with the rail.
        await this.ledger(
          subjects.accounts.ledger.settle,
          { accountId, operationId: `${transactionId}:settle`, holdId: transactionId },
          context,
        );
        return;
      case 'CREDIT_BACK':
        await this.ledger(
          subjects.accounts.ledger.credit,
          {
            accountId,
            operationId: `${transactionId}:refund`,
            amount: transaction.sentAmount.value,
            currency: transaction.sentAmount.currency,
            cause: { kind: 'TRANSACTION', id: transactionId },
            counterAccountId: systemAccount('PAYOUT_RAIL', transaction.sentAmount.currency),
          },
          context,
        );
        return;
      default:
        return;
    }
  }

  private async hold(transaction: TransactionRecord, context: RequestContext, settleOperationId: string | undefined): Promise<StepResult> {
    const { id: transactionId, sentAmount, destination } = transaction;
    const toInternal = destination.destinationType === 'ACCOUNT' && isInternal(destination.accountId);
    try {
      await this.ledger(
        subjects.accounts.ledger.hold,
        {
          accountId: sourceAccountOf(transaction),
          operationId: `${transactionId}:hold`,
          holdId: transactionId,
          amount: sentAmount.value,
          currency: sentAmount.currency,
          cause: { kind: 'TRANSACTION', id: transactionId },
          // Where the money goes when the hold settles: the payout rail, or FX on its way to an internal account.
          counterAccountId: systemAccount(toInternal ? 'FX' : 'PAYOUT_RAIL', sentAmount.currency),
          ...(settleOperationId === undefined ? {} : { settleOperationId }),
        },
        context,
      );
      return { kind: 'HELD', holdId: transactionId, amount: sentAmount.value, currency: sentAmount.currency };
    } catch (error) {
      // The ledger said no (insufficient funds, a frozen or closed account): the payment fails. An outage is retried.
      if (error instanceof DomainError && error.status >= 400 && error.status < 500) return { kind: 'REFUSED', reason: error.code };
      throw error;
    }
  }

  private ledger(subject: string, data: Record<string, unknown>, context: RequestContext): Promise<unknown> {
    return this.client.request(subject, data, { context, timeoutMs: LEDGER_TIMEOUT_MS });
  }
}

/** Where a drive's story comes from: the request that kicked it, or the payment's last recorded event. */
type DriveOrigin = { correlationId: string; causationId?: string | undefined };

/** A drive's own request id inside its payment's story; the transaction id only when nothing else is known. */
const driveContext = (platformId: string, transactionId: string, origin: DriveOrigin | undefined): TelemetryContext => {
  const requestId = newUuid();
  return { requestId, correlationId: origin?.correlationId ?? transactionId, causationId: origin?.causationId ?? requestId, platformId };
};

const sourceAccountOf = (transaction: TransactionRecord): string => {
  if (transaction.source.sourceType !== 'ACCOUNT') throw new Error(`Transaction ${transaction.id} is not paid from an account.`);
  return transaction.source.accountId;
};
