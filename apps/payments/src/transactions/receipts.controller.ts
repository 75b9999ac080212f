import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type ConfirmReceiptData,
  type IncomingTransactionWire,
  invalidInput,
  isIdOf,
  isUmaIncomingRecord,
  type ServiceRequest,
  subjects,
  toIncomingTransactionWire,
  toTransactionWire,
  type TransactionWire,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { incomingPaymentDecider } from '../incoming/incoming-payment';
import { type ConfirmReceipt, confirmIncomingReceipt, confirmReceipt } from './confirm-receipt';
import { transactionDecider } from './transaction';
import { TransactionEntity } from './transaction-view.projection';
import { transactionNotFound } from './transactions.controller';

@Controller()
export class ReceiptsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** POST /transactions/{id}/confirm. Another platform's transaction is not found, before its stream is touched. */
  @MessagePattern(subjects.payments.transaction.confirm)
  async confirm(@Payload() request: ServiceRequest<ConfirmReceiptData>): Promise<TransactionWire | IncomingTransactionWire> {
    const { context, data } = request;
    const { transactionId, receiptDeliveryConfirmedAt } = data;
    if (!isIdOf('Transaction', transactionId)) throw transactionNotFound(String(transactionId));
    if (
      receiptDeliveryConfirmedAt !== undefined &&
      (typeof receiptDeliveryConfirmedAt !== 'string' || Number.isNaN(Date.parse(receiptDeliveryConfirmedAt)))
    ) {
      throw invalidInput('receiptDeliveryConfirmedAt must be an RFC 3339 date-time such as 2025-10-13T12:00:00Z.', {
        field: 'receiptDeliveryConfirmedAt',
      });
    }
    const owned = await this.eventSourcing.em.findOne(
      TransactionEntity,
      { id: transactionId, platformId: context.platformId },
      { fields: ['id', 'record'] },
    );
    if (!owned) throw transactionNotFound(transactionId);
    const command: ConfirmReceipt = {
      type: 'ConfirmReceipt',
      data: { transactionId, ...(receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt } : {}) },
      metadata: { now: this.clock.now() },
    };
    // An UMA payment received has a stream of its own aggregate (a transfer-in, INCOMING too, does not).
    if (isUmaIncomingRecord(owned.record)) {
      const { state } = await this.eventSourcing.handle(
        transactionId,
        incomingPaymentDecider,
        (current) => confirmIncomingReceipt(command, current),
        context,
      );
      if (state.kind === 'None') throw transactionNotFound(transactionId);
      return toIncomingTransactionWire(state.transaction);
    }
    const { state } = await this.eventSourcing.handle(
      transactionId,
      transactionDecider,
      (current) => confirmReceipt(command, current),
      context,
    );
    if (state.kind === 'None') throw transactionNotFound(transactionId);
    return toTransactionWire(state.transaction);
  }
}
