import { Body, Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { FastifyRequest } from 'fastify';
import { type ConfirmReceiptData, type RequestContext, subjects, type TransactionWire, type TransferInData, type TransferOutData } from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { fieldProblems, IdPipe, invalidFields } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ConfirmReceiptDeliveryRequest, TransferInRequest, TransferOutRequest } from './transfers.dto';

const transactionId = new IdPipe('Transaction', 'TRANSACTION_NOT_FOUND', 'Transaction');

/** The Idempotency-Key travels to the payments service too: the transfer's id derives from it (decision 0009). */
const withKey = (key: string | undefined) => (typeof key === 'string' && key.length > 0 ? { idempotencyKey: key } : {});

@ApiTags('Same-Currency Transfers')
@ApiBasicAuth()
@Controller()
export class TransfersController {
  constructor(private readonly call: ServiceCall) {}

  @Post('transfer-out')
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: TransferOutRequest })
  transferOut(@Body() body: TransferOutRequest, @Headers('idempotency-key') key: string | undefined, @Ctx() context: RequestContext): Promise<TransactionWire> {
    const data: TransferOutData = {
      source: { accountId: body.source.accountId },
      destination: { accountId: body.destination.accountId, ...(body.destination.paymentRail !== undefined ? { paymentRail: body.destination.paymentRail } : {}) },
      amount: String(body.amount),
      ...withKey(key),
    };
    return this.call.request(subjects.payments.transfer.out, data, context);
  }

  @Post('transfer-in')
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: TransferInRequest })
  transferIn(@Body() body: TransferInRequest, @Headers('idempotency-key') key: string | undefined, @Ctx() context: RequestContext): Promise<TransactionWire> {
    const data: TransferInData = { source: { accountId: body.source.accountId }, destination: { accountId: body.destination.accountId }, amount: String(body.amount), ...withKey(key) };
    return this.call.request(subjects.payments.transfer.in, data, context);
  }
}

@ApiTags('Transactions')
@ApiBasicAuth()
@Controller('transactions')
export class TransactionReceiptsController {
  constructor(private readonly call: ServiceCall) {}

  /** The body is optional (the reference's ConfirmReceiptDeliveryRequest), so it is read here rather than by the body pipes. */
  @Post(':transactionId/confirm')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: ConfirmReceiptDeliveryRequest, required: false })
  async confirm(@Param('transactionId', transactionId) id: string, @Req() request: FastifyRequest, @Ctx() context: RequestContext): Promise<TransactionWire> {
    const raw = request.body ?? {};
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidFields([{ field: '(body)', problem: 'the request body must be a JSON object' }]);
    const errors = await validate(plainToInstance(ConfirmReceiptDeliveryRequest, raw), { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } });
    if (errors.length > 0) throw invalidFields(fieldProblems(errors));
    const { receiptDeliveryConfirmedAt } = raw as ConfirmReceiptDeliveryRequest;
    const data: ConfirmReceiptData = { transactionId: id, ...(receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt } : {}) };
    return this.call.request(subjects.payments.transaction.confirm, data, context);
  }
}
