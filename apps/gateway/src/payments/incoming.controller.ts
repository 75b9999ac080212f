import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import {
  type ApproveIncomingPaymentData,
  type IncomingTransactionWire,
  type RejectIncomingPaymentData,
  type RequestContext,
  type SandboxUmaReceiveData,
  subjects,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { defined } from '../http/list-query';
import { IdPipe, OptionalBody } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ApprovePaymentRequest, RejectPaymentRequest, SandboxUmaReceiveRequest } from './incoming.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const transactionId = new IdPipe('Transaction', 'TRANSACTION_NOT_FOUND', 'Transaction');

/** Incoming UMA payments: the sandbox receive simulator and the platform's approval of a deferred payment. */
@ApiBasicAuth()
@Controller()
export class IncomingPaymentsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('sandboxReceive')
  @Post('sandbox/uma/receive')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  @ApiTags('Sandbox')
  receive(@Body() body: SandboxUmaReceiveRequest, @Ctx() context: RequestContext): Promise<IncomingTransactionWire> {
    const data: SandboxUmaReceiveData = defined({ ...body, receivingCurrencyAmount: String(body.receivingCurrencyAmount) });
    return this.call.request(subjects.payments.incoming.receive, data, context);
  }

  @ReferenceOperation('approvePendingPayment')
  @Post('transactions/:transactionId/approve')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiTags('Transactions')
  @ApiBody({ type: ApprovePaymentRequest, required: false })
  approve(
    @Param('transactionId', transactionId) id: string,
    @OptionalBody(ApprovePaymentRequest) body: ApprovePaymentRequest,
    @Ctx() context: RequestContext,
  ): Promise<IncomingTransactionWire> {
    const { receiverCustomerInfo } = body;
    const data: ApproveIncomingPaymentData = { transactionId: id, ...(receiverCustomerInfo !== undefined ? { receiverCustomerInfo } : {}) };
    return this.call.request(subjects.payments.incoming.approve, data, context);
  }

  @ReferenceOperation('rejectPendingPayment')
  @Post('transactions/:transactionId/reject')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiTags('Transactions')
  @ApiBody({ type: RejectPaymentRequest, required: false })
  reject(
    @Param('transactionId', transactionId) id: string,
    @OptionalBody(RejectPaymentRequest) body: RejectPaymentRequest,
    @Ctx() context: RequestContext,
  ): Promise<IncomingTransactionWire> {
    const { reason } = body;
    const data: RejectIncomingPaymentData = { transactionId: id, ...(reason !== undefined ? { reason } : {}) };
    return this.call.request(subjects.payments.incoming.reject, data, context);
  }
}
