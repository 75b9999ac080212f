import { Body, Controller, Headers, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type ConfirmReceiptData,
  type IncomingTransactionWire,
  type RequestContext,
  type SignedReply,
  subjects,
  type TransactionWire,
  type TransferInData,
  type TransferOutData,
  type WalletAuthorization,
  type WalletFundedChangeData,
} from '@corridor/contracts';
import { answer, applyAuthorized, walletHeaders } from '../auth-credentials/signed-reply';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { IdPipe, OptionalBody } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ConfirmReceiptDeliveryRequest, TransferInRequest, TransferOutRequest } from './transfers.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const transactionId = new IdPipe('Transaction', 'TRANSACTION_NOT_FOUND', 'Transaction');

/** The Idempotency-Key travels to the payments service too: the transfer's id derives from it (decision 0009). */
const withKey = (key: string | undefined) => (typeof key === 'string' && key.length > 0 ? { idempotencyKey: key } : {});

/** An omitted amount travels as omitted: what it means is the payments service's rule (transfers/create-transfer.ts). */
const amountOf = (body: { amount?: number }) => (body.amount !== undefined ? { amount: String(body.amount) } : {});

@ApiTags('Same-Currency Transfers')
@ApiBasicAuth()
@Controller()
export class TransfersController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createTransferOut', { signature: 'signedRetry' })
  @Post('transfer-out')
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: TransferOutRequest })
  @ApiOperation({
    summary: 'Move money from an internal account to an external account of the same owner and currency',
    description:
      'amount is optional. Left out, the transfer moves the whole available balance (the account’s balance, not what is held) of the ' +
      'source internal account as read when the request arrives. ' +
      ('An account with nothing available is a 400 INVALID_AMOUNT (reason NO_AVAILABLE_BALANCE) that moves nothing: there is never a ' +
        'zero-amount transfer. ') +
      'A retry under the same Idempotency-Key answers with the transfer the first request made. ' +
      'An EMBEDDED_WALLET source takes the wallet’s signed retry (a Corridor departure from the reference, decision 0020): ' +
      'amount is then required; the first call answers 202 with {payloadToSign, requestId, expiresAt} and moves nothing; ' +
      'the same body again with Grid-Wallet-Signature (a stamp over payloadToSign by an active session of the wallet) and ' +
      'Request-Id makes the transfer, whose id payloadToSign names. Signature errors are 401 with the reference codes.',
  })
  async transferOut(
    @Body() body: TransferOutRequest,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const data: TransferOutData = {
      source: { accountId: body.source.accountId },
      destination: {
        accountId: body.destination.accountId,
        ...(body.destination.paymentRail !== undefined ? { paymentRail: body.destination.paymentRail } : {}),
      },
      ...amountOf(body),
    };
    const consent: WalletFundedChangeData = {
      accountIds: [data.source.accountId],
      bindAccountIds: [],
      operation: 'TRANSFER_OUT',
      targetId: data.source.accountId,
      body: data,
      ...walletHeaders(request),
    };
    const wallet = await this.call.request<SignedReply<WalletAuthorization>>(
      subjects.accounts.embeddedWallet.walletFundedChange,
      consent,
      context,
    );
    if (wallet.status === 202) return answer(reply, wallet);
    const transactionId = wallet.body?.resourceId;
    const transfer: TransferOutData = { ...data, ...withKey(key), ...(transactionId ? { transactionId } : {}) };
    return applyAuthorized(this.call, context, wallet.body, () =>
      this.call.request<TransactionWire>(subjects.payments.transfer.out, transfer, context),
    );
  }

  @ReferenceOperation('createTransferIn')
  @Post('transfer-in')
  @HttpCode(201)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: TransferInRequest })
  @ApiOperation({
    summary: 'Pull money from an external (ACH) account into an internal account of the same owner and currency',
    description:
      'amount is optional in the wire format, but a transfer-in without one is a 400 INVALID_INPUT naming amount: Corridor cannot see ' +
      'the balance of the external account it pulls from, ' +
      'so there is no whole balance to pull. Give amount in minor units.',
  })
  transferIn(
    @Body() body: TransferInRequest,
    @Headers('idempotency-key') key: string | undefined,
    @Ctx() context: RequestContext,
  ): Promise<TransactionWire> {
    const data: TransferInData = {
      source: { accountId: body.source.accountId },
      destination: { accountId: body.destination.accountId },
      ...amountOf(body),
      ...withKey(key),
    };
    return this.call.request(subjects.payments.transfer.in, data, context);
  }
}

@ApiTags('Transactions')
@ApiBasicAuth()
@Controller('transactions')
export class TransactionReceiptsController {
  constructor(private readonly call: ServiceCall) {}

  /** The body is optional (the reference's ConfirmReceiptDeliveryRequest). */
  @ReferenceOperation('confirmReceiptDelivery')
  @Post(':transactionId/confirm')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiBody({ type: ConfirmReceiptDeliveryRequest, required: false })
  confirm(
    @Param('transactionId', transactionId) id: string,
    @OptionalBody(ConfirmReceiptDeliveryRequest) body: ConfirmReceiptDeliveryRequest,
    @Ctx() context: RequestContext,
  ): Promise<TransactionWire | IncomingTransactionWire> {
    const { receiptDeliveryConfirmedAt } = body;
    const data: ConfirmReceiptData = {
      transactionId: id,
      ...(receiptDeliveryConfirmedAt !== undefined ? { receiptDeliveryConfirmedAt } : {}),
    };
    return this.call.request(subjects.payments.transaction.confirm, data, context);
  }
}
