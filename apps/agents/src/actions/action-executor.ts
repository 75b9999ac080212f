import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { currentContext } from '@corridor/telemetry';
import {
  CLOCK,
  type Clock,
  DomainError,
  type ExecuteQuoteData,
  newUuid,
  type QuoteWire,
  type RequestContext,
  subjects,
  type TransactionWire,
  type TransferInData,
  type TransferOutData,
} from '@corridor/contracts';
import { EventSourcing, PeriodicSweep } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { AGENT_OPTIONS, type AgentOptions } from '../agents/agent-options';
import { AgentParties } from '../parties';
import { UsageLedger } from '../usage/usage-ledger';
import { type Action, actionDecider, type ActionEvent, type ActionView, failureReasonOf, recordExecution, recordFailure } from './action';
import { ActionEntity } from './action-view.projection';

/** Actions resumed per sweep; a backlog drains over the following sweeps. */
const SWEEP_BATCH = 100;
/** Payments may queue behind other work; an execution that times out is left due for the sweep. */
const PAYMENTS_TIMEOUT_MS = 20_000;
/** An action due for less than this is probably being executed by the request that made it due. */
const RESUME_AFTER_MS = 10_000;
/** A reservation still held this long after its action ended (or was never recorded) belongs to a request that died. */
const ORPHAN_AFTER_MS = 120_000;

/**
 * Executes APPROVED actions through payments (action.ts draws the states). Every call into payments
 * is keyed by the action: a transfer passes the action id as its idempotency key (payments derives
 * the transaction id from it), and a quote executes once (a second execute finds it no longer
 * PENDING and the action records the transaction it already has). So an execution resumed after
 * a crash — the sweep finds actions still due — never moves money twice. A refusal by payments
 * (quote expired, funds short…) fails the action and gives its usage back; an outage (timeout, 5xx)
 * leaves it due for the next sweep.
 */
@Injectable()
export class ActionExecutor implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = createLogger('agents:action-executor');
  private readonly sweeper = new PeriodicSweep(
    () => this.resumeDue(),
    (error) => this.logger.error({ err: error }, 'Agent action sweep failed; the next sweep tries again.'),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: AgentParties,
    private readonly usage: UsageLedger,
    @Inject(AGENT_OPTIONS) private readonly options: AgentOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start(this.options.executionSweepSeconds * 1000);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
  }

  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  /** Executes one action if it is due, and returns it as it then is. The payments error of a refusal is returned with it. */
  async execute(actionId: string, platformId: string): Promise<{ action: ActionView; refusal?: DomainError }> {
    const action = await this.load(actionId);
    if (action.kind !== 'Exists') throw new Error(`Agent action ${actionId} does not exist.`);
    if (!action.action.executionDue) return { action: action.action };
    const context = executionContext(platformId, action.action);
    const now = () => this.clock.now();
    try {
      const { transaction, quote } = await this.perform(action.action, context);
      const command = {
        type: 'RecordExecution' as const,
        data: { actionId, transaction, ...(quote ? { quote } : {}) },
        metadata: { now: now() },
      };
      return { action: await this.record(actionId, context, (state) => recordExecution(command, state)) };
    } catch (error) {
      if (!(error instanceof DomainError) || error.status >= 500) throw error;
      const reason = failureReasonOf(action.action.request, error.code);
      const command = { type: 'RecordFailure' as const, data: { actionId, reason }, metadata: { now: now() } };
      const failed = await this.record(actionId, context, (state) => recordFailure(command, state));
      await this.usage.release(actionId);
      this.logger.info({ actionId, reason, code: error.code, err: error }, 'Agent action failed in payments.');
      return { action: failed, refusal: error };
    }
  }

  private async perform(action: ActionView, context: RequestContext): Promise<{ transaction: TransactionWire; quote?: QuoteWire }> {
    const { request } = action;
    switch (request.kind) {
      case 'EXECUTE_QUOTE': {
        let quote = await this.parties.quote(context, request.quoteId);
        if (quote.status === 'PENDING') {
          const data: ExecuteQuoteData = {
            quoteId: request.quoteId,
            ...(request.walletSignature !== undefined ? { walletSignature: request.walletSignature } : {}),
          };
          quote = await this.parties
            .request<QuoteWire>(subjects.payments.quote.execute, data, context, PAYMENTS_TIMEOUT_MS)
            .catch(async (error: unknown) => {
              // Executed by an earlier attempt of this action, or expired meanwhile: the quote says which.
              if (error instanceof DomainError && error.status === 409) return this.parties.quote(context, request.quoteId);
              throw error;
            });
        }
        if (quote.status === 'PENDING' || quote.status === 'EXPIRED') {
          throw new DomainError('CONFLICT', 'conflict', `Quote ${quote.id} expired at ${quote.expiresAt} before the action was executed.`, {
            quoteId: quote.id,
          });
        }
        const transaction = await this.parties.request<TransactionWire>(
          subjects.payments.transaction.get,
          { transactionId: quote.transactionId },
          context,
        );
        return { transaction, quote };
      }
      case 'TRANSFER_OUT': {
        const data: TransferOutData = {
          source: { accountId: request.sourceAccountId },
          destination: {
            accountId: request.destinationAccountId,
            ...(request.paymentRail !== undefined ? { paymentRail: request.paymentRail } : {}),
          },
          amount: request.amount,
          idempotencyKey: action.id,
          ...(request.transactionId !== undefined ? { transactionId: request.transactionId } : {}),
        };
        return {
          transaction: await this.parties.request<TransactionWire>(subjects.payments.transfer.out, data, context, PAYMENTS_TIMEOUT_MS),
        };
      }
      case 'TRANSFER_IN': {
        const data: TransferInData = {
          source: { accountId: request.sourceAccountId },
          destination: { accountId: request.destinationAccountId },
          amount: request.amount,
          idempotencyKey: action.id,
        };
        return {
          transaction: await this.parties.request<TransactionWire>(subjects.payments.transfer.in, data, context, PAYMENTS_TIMEOUT_MS),
        };
      }
      default: {
        const unhandled: never = request;
        return unhandled;
      }
    }
  }

  private async load(actionId: string): Promise<Action> {
    return (await this.eventSourcing.load(actionId, actionDecider)).state;
  }

  private async record(actionId: string, context: RequestContext, decide: (state: Action) => ActionEvent[]): Promise<ActionView> {
    const { state } = await this.eventSourcing.handle(actionId, actionDecider, decide, context);
    if (state.kind !== 'Exists') throw new Error(`Agent action ${actionId} vanished while executing.`);
    return state.action;
  }

  /** Resumes actions still due a while after they became due, and gives back reservations of actions never recorded. */
  private async resumeDue(): Promise<number> {
    const now = this.clock.now();
    const due = await this.eventSourcing.em.find(
      ActionEntity,
      { executionDue: true, updatedAt: { $lte: new Date(now.getTime() - RESUME_AFTER_MS) } },
      { orderBy: { updatedAt: 'asc' }, limit: SWEEP_BATCH, fields: ['id', 'platformId'] },
    );
    let resumed = 0;
    for (const { id, platformId } of due) {
      // One action payments cannot answer for now must not hold back the others.
      await this.execute(id, platformId).then(
        () => (resumed += 1),
        (error: unknown) => this.logger.warn({ actionId: id, err: error }, 'Agent action could not be executed; the next sweep retries.'),
      );
    }
    for (const { actionId, status } of await this.usage.unreleased(new Date(now.getTime() - ORPHAN_AFTER_MS), SWEEP_BATCH)) {
      // No row: the request reserved usage and died before recording its action — unless the stream
      // exists and only the read model is behind, in which case the next sweep sees its status.
      if (status === null && (await this.eventSourcing.store.readStream(actionId)).version > 0) continue;
      if (await this.usage.release(actionId))
        this.logger.warn(
          { actionId, status: status ?? 'never recorded' },
          'Released the usage reserved for an agent action, which its request had not given back.',
        );
    }
    return resumed;
  }
}

/** Payments is asked as the agent (so the transaction carries agentId), with the action id as the idempotency key. */
const executionContext = (platformId: string, action: ActionView): RequestContext => {
  const requestId = newUuid();
  // The approval (or submit) request's story when it runs the action; a sweep's resumption names the action.
  return {
    platformId,
    actor: { kind: 'agent', agentId: action.agentId },
    requestId,
    correlationId: currentContext()?.correlationId ?? action.id,
    idempotencyKey: action.id,
  };
};
