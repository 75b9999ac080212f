import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import { decodeCursor, DomainError, isIdOf, type ListTransactionsData, type Page, type ServiceRequest, subjects, toPage, toTransactionWire, type TransactionIdData, type TransactionWire } from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { TransactionEntity, type TransactionRow } from './transaction-view.projection';

export const transactionNotFound = (transactionId: string): DomainError =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });

@Controller()
export class TransactionsController {
  constructor(private readonly eventSourcing: EventSourcing) {}

  @MessagePattern(subjects.payments.transaction.get)
  async get(@Payload() request: ServiceRequest<TransactionIdData>): Promise<TransactionWire> {
    const { transactionId } = request.data;
    if (!isIdOf('Transaction', transactionId)) throw transactionNotFound(String(transactionId));
    const row = await this.eventSourcing.em.findOne(TransactionEntity, { id: transactionId, platformId: request.context.platformId });
    if (!row) throw transactionNotFound(transactionId);
    return toTransactionWire(row.record);
  }

  /**
   * Keyset paging on (createdAt, id) in either direction: a cursor names the last row of a page,
   * so rows created while a client pages never shift a boundary. Every filter is scoped to the
   * asking platform first.
   */
  @MessagePattern(subjects.payments.transaction.list)
  async list(@Payload() request: ServiceRequest<ListTransactionsData>): Promise<Page<TransactionWire>> {
    const { customerId, platformCustomerId, status, type, startDate, endDate, sortOrder = 'desc', limit, cursor } = request.data;
    const { accountIdentifier, senderAccountIdentifier, receiverAccountIdentifier, reference } = request.data;
    const where = {
      platformId: request.context.platformId,
      ...(customerId !== undefined ? { customerId } : {}),
      ...(platformCustomerId !== undefined ? { platformCustomerId } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(senderAccountIdentifier !== undefined ? { sourceAccount: senderAccountIdentifier } : {}),
      ...(receiverAccountIdentifier !== undefined ? { destinationAccount: receiverAccountIdentifier } : {}),
      ...(accountIdentifier !== undefined ? { $or: [{ sourceAccount: accountIdentifier }, { destinationAccount: accountIdentifier }] } : {}),
      ...(reference !== undefined ? { reference } : {}),
      ...(startDate !== undefined || endDate !== undefined
        ? { createdAt: { ...(startDate !== undefined ? { $gte: new Date(startDate) } : {}), ...(endDate !== undefined ? { $lte: new Date(endDate) } : {}) } }
        : {}),
    } as FilterQuery<TransactionRow>;
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const beyond = sortOrder === 'desc' ? '$lt' : '$gt';
    const keyset = after && {
      $or: [{ createdAt: { [beyond]: new Date(after.createdAt) } }, { createdAt: new Date(after.createdAt), id: { [beyond]: after.id } }],
    };
    const em = this.eventSourcing.em;
    const [rows, totalCount] = await Promise.all([
      em.find(TransactionEntity, (keyset ? { $and: [where, keyset] } : where) as FilterQuery<TransactionRow>, { orderBy: { createdAt: sortOrder, id: sortOrder }, limit: limit + 1 }),
      em.count(TransactionEntity, where),
    ]);
    return toPage(rows, limit, totalCount, (row) => toTransactionWire(row.record));
  }
}
