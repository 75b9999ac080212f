import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { v5 as uuidv5 } from 'uuid';
import {
  CLOCK,
  type Clock,
  type MinorUnitsRule,
  newId,
  isIdOf,
  parseMinorUnits,
  type RequestContext,
  type ServiceRequest,
  subjects,
  TRANSFER_AMOUNT_MAX,
  type TransactionWire,
  type TransferInData,
  type TransferOutData,
} from '@corridor/contracts';
import type { TransferDirection } from '../transactions/transfer-events';
import type { CreateTransfer, TransferFacts } from './create-transfer';
import { TransferOpener } from './open-transfer';
import { TransferParties, type TransferOwner } from './transfer-parties';

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

@Controller()
export class TransfersController {
  constructor(
    private readonly parties: TransferParties,
    private readonly opener: TransferOpener,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * POST /transfer-out: hold the money on the internal account (a shortfall is a 400 and nothing
   * is created), open the transaction PENDING, and hand it to the rail, which settles or releases
   * the hold (transfer-processor.ts). The rules are createTransfer's, the steps TransferOpener's.
   */
  @MessagePattern(subjects.payments.transfer.out)
  async transferOut(@Payload() request: ServiceRequest<TransferOutData>): Promise<TransactionWire> {
    const { context, data } = request;
    const requested = data.amount === undefined ? undefined : parseMinorUnits(data.amount, TRANSFER_AMOUNT);
    const [internal, external] = await Promise.all([
      this.parties.internalAccount(context, data.source?.accountId, 'source.accountId'),
      this.parties.externalAccount(context, data.destination?.accountId, 'destination.accountId'),
    ]);
    // A transfer an Embedded Wallet's owner signed for takes the id their consent names: the ledger
    // holds wallet money only for it (decision 0020). Any other is named by its Idempotency-Key.
    const transactionId = isIdOf('Transaction', data.transactionId)
      ? data.transactionId
      : transferIdFor(context.platformId, 'OUT', data.idempotencyKey);
    // A retry of an omitted-amount transfer answers with what the first one moved, not with the
    // balance now left (createTransfer replays it, or refuses a different request under the key).
    const [earlierAmount, owner] = await Promise.all([
      requested === undefined ? this.opener.earlierAmount(transactionId) : undefined,
      this.parties.owner(context, internal),
    ]);
    const facts: TransferFacts = { transactionId, platformId: context.platformId, direction: 'OUT', internal, external, requested };
    return this.opener.open(
      context,
      this.commandFor(context, { ...facts, ...(earlierAmount !== undefined ? { earlierAmount } : {}) }, owner),
    );
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
    const [external, internal] = await Promise.all([
      this.parties.externalAccount(context, data.source?.accountId, 'source.accountId'),
      this.parties.internalAccount(context, data.destination?.accountId, 'destination.accountId'),
    ]);
    const transactionId = transferIdFor(context.platformId, 'IN', data.idempotencyKey);
    const facts: TransferFacts = { transactionId, platformId: context.platformId, direction: 'IN', internal, external, requested };
    return this.opener.open(context, this.commandFor(context, facts, await this.parties.owner(context, internal)));
  }

  private commandFor(context: RequestContext, facts: TransferFacts, owner: TransferOwner): CreateTransfer {
    const agent = context.actor.kind === 'agent' ? { agentId: context.actor.agentId } : {};
    return { type: 'CreateTransfer', data: { facts, ...owner, ...agent }, metadata: { now: this.clock.now() } };
  }
}
