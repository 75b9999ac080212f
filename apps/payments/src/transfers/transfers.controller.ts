import { Controller, Inject, Logger } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { v5 as uuidv5 } from 'uuid';
import {
  CLOCK,
  type Clock,
  DomainError,
  type ExternalAccountWire,
  type HoldData,
  type InternalAccountWire,
  invalidInput,
  type MinorUnitsRule,
  newId,
  isIdOf,
  parseMinorUnits,
  type ReleaseHoldData,
  type RequestContext,
  type ServiceRequest,
  subjects,
  toTransactionWire,
  TRANSFER_AMOUNT_MAX,
  type TransactionWire,
  type TransferInData,
  type TransferOutData,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { type Transaction, type TransactionEvent, transactionDecider } from '../transactions/transaction';
import type { TransferDirection, TransferTerms } from '../transactions/transfer-events';
import { amountToTransfer, type CreateTransfer, createTransfer, WHOLE_AVAILABLE_BALANCE } from './create-transfer';
import { canPull, sandboxRailOutcome } from './sandbox-rail';
import { TransferParties, type TransferOwner } from './transfer-parties';
import { TransferProcessor } from './transfer-processor';

const LEDGER_TIMEOUT_MS = 10_000;
/** Namespace of transfer ids derived from Idempotency-Keys (uuid v5). */
const TRANSFER_ID_NAMESPACE = '0f6f4d1e-3b1a-5c2e-9d7a-6b0c4e2f8a13';

const TRANSFER_AMOUNT: MinorUnitsRule = { field: 'amount', min: 1n, max: BigInt(TRANSFER_AMOUNT_MAX) };

/**
 * The transfer's id: derived from the Idempotency-Key when the request has one, so a retry (or a
 * twin racing it) names the same stream and the same ledger hold and cannot move money twice even
 * when the gateway's idempotency record is gone; a fresh uuid v7 otherwise. Its scope is the
 * platform's (decision 0028): a platform's own /transfer-out and /transfer-in carry its client's key,
 * and an agent's transfers arrive only from the agents service keyed by the AgentAction's id, which
 * is itself derived in the agent's scope. The derivation stays as it was, so an action resumed
 * across the deploy finds the transfer it already made instead of moving the money again.
 */
export const transferIdFor = (platformId: string, direction: TransferDirection, idempotencyKey: string | undefined): string =>
  idempotencyKey === undefined
    ? newId('Transaction')
    : `Transaction:${uuidv5(`${platformId}\n${direction}\n${idempotencyKey}`, TRANSFER_ID_NAMESPACE)}`;

/** The counterparty as the external account's beneficiary names it (the reference's counterpartyInformation keys). */
export const counterpartyOf = (account: ExternalAccountWire): Record<string, string> => {
  const beneficiary = account.accountInfo['beneficiary'] as Record<string, unknown> | undefined;
  const name = beneficiary?.['fullName'] ?? beneficiary?.['legalName'];
  return typeof name === 'string' && name.length > 0 ? { FULL_NAME: name } : {};
};

const ownedBySame = (internal: InternalAccountWire, external: ExternalAccountWire): boolean => internal.customerId === external.customerId;

@Controller()
export class TransfersController {
  private readonly logger = new Logger('TransfersController');

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: TransferParties,
    private readonly processor: TransferProcessor,
    private readonly client: ServiceClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * POST /transfer-out: hold the money on the internal account (a shortfall is a 400 and nothing
   * is created), open the transaction PENDING, and hand it to the rail, which settles or releases
   * the hold (transfer-processor.ts).
   */
  @MessagePattern(subjects.payments.transfer.out)
  async transferOut(@Payload() request: ServiceRequest<TransferOutData>): Promise<TransactionWire> {
    const { context, data } = request;
    const requested = data.amount === undefined ? undefined : parseMinorUnits(data.amount, TRANSFER_AMOUNT);
    const [source, destination] = await Promise.all([
      this.parties.internalAccount(context, data.source?.accountId, 'source.accountId'),
      this.parties.externalAccount(context, data.destination?.accountId, 'destination.accountId'),
    ]);
    if (source.status !== 'ACTIVE')
      throw invalidInput(`source.accountId ${source.id} is ${source.status}; only an ACTIVE account can send.`, {
        field: 'source.accountId',
      });
    if (destination.status === 'INACTIVE')
      throw invalidInput(`destination.accountId ${destination.id} is INACTIVE and cannot receive.`, { field: 'destination.accountId' });
    this.checkPair(source, destination, 'destination.accountId');
    // A transfer an Embedded Wallet's owner signed for takes the id their consent names: the ledger
    // holds wallet money only for it (decision 0020). Any other is named by its Idempotency-Key.
    const transactionId = isIdOf('Transaction', data.transactionId)
      ? data.transactionId
      : transferIdFor(context.platformId, 'OUT', data.idempotencyKey);
    // A retry of an omitted-amount transfer answers with what the first one moved, not with the
    // balance now left (open() replays it, or refuses a different request under the key).
    const earlier = requested === undefined ? await this.earlierTransfer(transactionId) : undefined;
    const amount =
      earlier !== undefined
        ? BigInt(earlier.amount)
        : amountToTransfer({
            direction: 'OUT',
            requested,
            internalAccountId: source.id,
            currency: destination.currency,
            available: BigInt(source.balance.amount),
          });
    const transfer: Omit<TransferTerms, 'createdAt'> = {
      transactionId,
      platformId: context.platformId,
      direction: 'OUT',
      internalAccountId: source.id,
      externalAccountId: destination.id,
      currency: destination.currency,
      amount: amount.toString(),
      outcome: sandboxRailOutcome(destination.accountInfo),
      fingerprint: JSON.stringify(['OUT', source.id, destination.id, requested?.toString() ?? WHOLE_AVAILABLE_BALANCE]),
      holdId: transactionId,
    };
    return this.open(context, transfer, {
      ...(await this.parties.owner(context, source)),
      counterpartyInformation: counterpartyOf(destination),
    });
  }

  /**
   * POST /transfer-in: pull from an external account that can be pulled from (ACH) into an
   * internal account; the internal account is credited only when the rail delivers. Any other
   * external account is a 400 pointing at the internal account's payment instructions.
   */
  @MessagePattern(subjects.payments.transfer.in)
  async transferIn(@Payload() request: ServiceRequest<TransferInData>): Promise<TransactionWire> {
    const { context, data } = request;
    const requested = data.amount === undefined ? undefined : parseMinorUnits(data.amount, TRANSFER_AMOUNT);
    const [source, destination] = await Promise.all([
      this.parties.externalAccount(context, data.source?.accountId, 'source.accountId'),
      this.parties.internalAccount(context, data.destination?.accountId, 'destination.accountId'),
    ]);
    if (destination.status === 'CLOSED')
      throw invalidInput(`destination.accountId ${destination.id} is CLOSED and cannot receive.`, { field: 'destination.accountId' });
    if (source.status === 'INACTIVE')
      throw invalidInput(`source.accountId ${source.id} is INACTIVE and cannot be pulled from.`, { field: 'source.accountId' });
    this.checkPair(destination, source, 'source.accountId');
    if (!canPull(source.accountInfo)) {
      throw new DomainError(
        'INVALID_INPUT',
        'validation',
        `source.accountId ${source.id} cannot be pulled from (only accounts on the ACH rail can). To fund ${destination.id}, send money to its fundingPaymentInstructions (GET /customers/internal-accounts or GET /platform/internal-accounts).`,
        {
          field: 'source.accountId',
          reason: 'NOT_PULLABLE',
          internalAccountId: destination.id,
          fundingPaymentInstructions: destination.fundingPaymentInstructions,
        },
      );
    }
    const amount = amountToTransfer({
      direction: 'IN',
      requested,
      internalAccountId: destination.id,
      currency: source.currency,
      available: BigInt(destination.balance.amount),
    });
    const transactionId = transferIdFor(context.platformId, 'IN', data.idempotencyKey);
    const transfer: Omit<TransferTerms, 'createdAt'> = {
      transactionId,
      platformId: context.platformId,
      direction: 'IN',
      internalAccountId: destination.id,
      externalAccountId: source.id,
      currency: source.currency,
      amount: amount.toString(),
      outcome: sandboxRailOutcome(source.accountInfo),
      fingerprint: JSON.stringify(['IN', source.id, destination.id, amount.toString()]),
    };
    return this.open(context, transfer, {
      ...(await this.parties.owner(context, destination)),
      counterpartyInformation: counterpartyOf(source),
    });
  }

  /** Same currency, same owner: a customer's internal account with that customer's external account, a platform's with the platform's. */
  private checkPair(internal: InternalAccountWire, external: ExternalAccountWire, externalField: string): void {
    const internalCurrency = internal.balance.currency.code;
    if (internalCurrency !== external.currency) {
      throw new DomainError(
        'INVALID_CURRENCY',
        'validation',
        `${externalField} ${external.id} holds ${external.currency} and ${internal.id} holds ${internalCurrency}; a transfer moves one currency. Use POST /quotes to convert.`,
        { field: externalField },
      );
    }
    if (!ownedBySame(internal, external)) {
      throw invalidInput(
        `${externalField} ${external.id} does not belong to the owner of ${internal.id}; a transfer moves money between one owner's own accounts.`,
        { field: externalField },
      );
    }
  }

  /** Hold (transfer-out), then open the stream; an existing stream under the same id is the retry's answer. */
  private async open(
    context: RequestContext,
    transfer: Omit<TransferTerms, 'createdAt'>,
    owner: TransferOwner & { counterpartyInformation: Record<string, string> },
  ): Promise<TransactionWire> {
    const agent = context.actor.kind === 'agent' ? { agentId: context.actor.agentId } : {};
    const command: CreateTransfer = { type: 'CreateTransfer', data: { transfer, ...owner, ...agent }, metadata: { now: this.clock.now() } };
    const existing = await this.eventSourcing.store.readStream(transfer.transactionId);
    if (existing.events.length > 0) {
      // A retry: the decider answers with the stored transfer, or refuses a different request.
      const { state } = await this.eventSourcing.handle(
        transfer.transactionId,
        transactionDecider,
        (current) => createTransfer(command, current),
        context,
      );
      return toTransactionWire(this.transactionOf(state));
    }
    if (transfer.direction === 'OUT') await this.hold(context, transfer);
    try {
      const { state, events } = await this.eventSourcing.handle(
        transfer.transactionId,
        transactionDecider,
        (current) => createTransfer(command, current),
        context,
        { assumeNew: true },
      );
      if (events.length > 0) this.processor.kick(transfer.transactionId, context.platformId);
      return toTransactionWire(this.transactionOf(state));
    } catch (error) {
      // The hold stands but no transaction names it: give the money back. When the stream exists
      // (a twin under the same key won, or the append went through before the error) the hold is
      // the stream's and stays.
      const written = await this.eventSourcing.store.readStream(transfer.transactionId).then(
        (stream) => stream.events.length > 0,
        () => true,
      );
      if (transfer.direction === 'OUT' && !written) {
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
      throw error;
    }
  }

  /** The terms of the transfer already opened under this id (a retry), if any. */
  private async earlierTransfer(transactionId: string): Promise<TransferTerms | undefined> {
    const stored = await this.eventSourcing.store.readStream(transactionId);
    const state = stored.events.reduce<Transaction>(
      (current, event) => transactionDecider.evolve(current, event as unknown as TransactionEvent),
      transactionDecider.initialState(),
    );
    return state.kind === 'Transfer' ? state.transfer : undefined;
  }

  private transactionOf(state: ReturnType<typeof transactionDecider.initialState>) {
    if (state.kind === 'None') throw new Error('A transfer stream was left empty.');
    return state.transaction;
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

const releaseLogger = createLogger('payments:transfers');
