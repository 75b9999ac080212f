import { Injectable } from '@nestjs/common';
import {
  DomainError,
  type HoldData,
  type ReleaseHoldData,
  type RequestContext,
  subjects,
  toTransactionWire,
  type TransactionWire,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { type Transaction, transactionDecider } from '../transactions/transaction';
import type { TransferTerms } from '../transactions/transfer-events';
import { type CreateTransfer, createTransfer, planTransfer } from './create-transfer';
import { TransferProcessor } from './transfer-processor';

const LEDGER_TIMEOUT_MS = 10_000;

const releaseLogger = createLogger('payments:transfers');

/**
 * The runner of a transfer's opening, whose every rule is createTransfer's. Its steps:
 *
 *   stream exists? ── yes ──> decide on it: the stored transfer, or a 409 for another request
 *        │ no
 *   planTransfer (a refusal holds nothing) ──> hold (transfer-out) ──> append TransferCreated ──> kick the rail
 *                                                    │ append fails and no stream names the hold
 *                                                    └──> release the hold
 *
 * Each ledger step is keyed by the transaction id (`<id>:hold`, `<id>:release`), so a retry or a
 * racing twin under the same Idempotency-Key repeats a no-op, and the TransferCreated event records
 * the hold it names. From then on TransferProcessor settles or releases it.
 */
@Injectable()
export class TransferOpener {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly processor: TransferProcessor,
    private readonly client: ServiceClient,
  ) {}

  /** The amount the transfer already opened under this id moved, if any (a retry of a transfer-out without an amount). */
  async earlierAmount(transactionId: string): Promise<bigint | undefined> {
    const { state } = await this.eventSourcing.load(transactionId, transactionDecider);
    return state.kind === 'Transfer' ? BigInt(state.transfer.amount) : undefined;
  }

  /** Hold (transfer-out), then open the stream; an existing stream under the same id is the retry's answer. */
  async open(context: RequestContext, command: CreateTransfer): Promise<TransactionWire> {
    const { transactionId } = command.data.facts;
    const decide = (current: Transaction) => createTransfer(command, current);
    const existing = await this.eventSourcing.store.readStream(transactionId);
    if (existing.events.length > 0) {
      const { state } = await this.eventSourcing.handle(transactionId, transactionDecider, decide, context);
      return toTransactionWire(transactionOf(state));
    }
    const transfer = planTransfer(command.data.facts);
    if (transfer.direction === 'OUT') await this.hold(context, transfer);
    try {
      const { state, events } = await this.eventSourcing.handle(transactionId, transactionDecider, decide, context, { assumeNew: true });
      if (events.length > 0) this.processor.kick(transactionId, context.platformId);
      return toTransactionWire(transactionOf(state));
    } catch (error) {
      await this.releaseUnrecorded(context, transfer, error);
      throw error;
    }
  }

  /**
   * The hold stands but no transaction names it: give the money back. When the stream exists (a
   * twin under the same key won, or the append went through before the error) the hold is the
   * stream's and stays.
   */
  private async releaseUnrecorded(context: RequestContext, transfer: Omit<TransferTerms, 'createdAt'>, error: unknown): Promise<void> {
    if (transfer.direction !== 'OUT') return;
    const written = await this.eventSourcing.store.readStream(transfer.transactionId).then(
      (stream) => stream.events.length > 0,
      () => true,
    );
    if (written) return;
    await this.release(context, transfer).catch((releaseError: unknown) =>
      // Nothing retries this: the hold stays on the account until someone releases it by hand.
      releaseLogger.error(
        {
          err: releaseError,
          createError: error instanceof Error ? error.message : String(error),
          transactionId: transfer.transactionId,
          holdId: transfer.holdId ?? transfer.transactionId,
          accountId: transfer.internalAccountId,
          amount: transfer.amount.toString(),
          currency: transfer.currency,
        },
        'A failed transfer-out could not release its hold: the money stays held with no transaction naming it; release the hold by hand.',
      ),
    );
  }

  private async hold(context: RequestContext, transfer: Omit<TransferTerms, 'createdAt'>): Promise<void> {
    const data: HoldData = {
      accountId: transfer.internalAccountId,
      operationId: `${transfer.transactionId}:hold`,
      holdId: transfer.holdId ?? transfer.transactionId,
      amount: transfer.amount,
      currency: transfer.currency,
      cause: { kind: 'TRANSFER', id: transfer.transactionId },
    };
    try {
      await this.client.request(subjects.accounts.ledger.hold, data, { context, timeoutMs: LEDGER_TIMEOUT_MS });
    } catch (error) {
      // The reference has no insufficient-funds code for this route: INVALID_AMOUNT, with the reason and figures in details.
      if (error instanceof DomainError && error.code === 'INSUFFICIENT_FUNDS') {
        throw new DomainError('INVALID_AMOUNT', 'validation', `${error.message} Nothing was transferred.`, {
          ...error.details,
          field: 'amount',
          reason: 'INSUFFICIENT_FUNDS',
        });
      }
      throw error;
    }
  }

  private async release(context: RequestContext, transfer: Omit<TransferTerms, 'createdAt'>): Promise<void> {
    const data: ReleaseHoldData = {
      accountId: transfer.internalAccountId,
      operationId: `${transfer.transactionId}:release`,
      holdId: transfer.holdId ?? transfer.transactionId,
    };
    await this.client.request(subjects.accounts.ledger.release, data, { context, timeoutMs: LEDGER_TIMEOUT_MS });
  }
}

const transactionOf = (state: Transaction) => {
  if (state.kind === 'None') throw new Error('A transfer stream was left empty.');
  return state.transaction;
};
