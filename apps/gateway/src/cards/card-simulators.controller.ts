import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  cardTransactionSubjects,
  type CardTransactionWire,
  type RequestContext,
  type SimulateCardAuthorizationData,
  type SimulateCardClearingData,
  type SimulateCardReturnData,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { SandboxCardAuthorizationRequest, SandboxCardClearingRequest, SandboxCardReturnRequest } from './card-simulators.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const cardId = new IdPipe('Card', 'REFERENCE_NOT_FOUND', 'Card');

/**
 * The card network's side, simulated for sandbox platforms: authorization, clearing and return
 * against a card. A production token is refused with 403 (the issue and the design; the reference
 * docs say production answers 404 on these paths, its OpenAPI declares the 403).
 */
@ApiBasicAuth()
@ApiTags('Sandbox')
@Controller('sandbox/cards')
export class CardSimulatorsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('sandboxSimulateCardAuthorization')
  @Post(':id/simulate/authorization')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  authorize(
    @Param('id', cardId) id: string,
    @Body() body: SandboxCardAuthorizationRequest,
    @Headers('idempotency-key') key: string | undefined,
    @Ctx() context: RequestContext,
  ): Promise<CardTransactionWire> {
    const { merchant } = body;
    const data: SimulateCardAuthorizationData = {
      cardId: id,
      amount: String(body.amount),
      currency: body.currency.code,
      merchant: {
        descriptor: merchant.descriptor,
        ...(merchant.mcc !== undefined ? { mcc: merchant.mcc } : {}),
        ...(merchant.country !== undefined ? { country: merchant.country } : {}),
      },
      ...(typeof key === 'string' && key.length > 0 ? { idempotencyKey: key } : {}),
    };
    return this.call.request(cardTransactionSubjects.authorize, data, context);
  }

  @ReferenceOperation('sandboxSimulateCardClearing')
  @Post(':id/simulate/clearing')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  clear(
    @Param('id', cardId) id: string,
    @Body() body: SandboxCardClearingRequest,
    @Ctx() context: RequestContext,
  ): Promise<CardTransactionWire> {
    const data: SimulateCardClearingData = { cardId: id, cardTransactionId: body.cardTransactionId, amount: String(body.amount) };
    return this.call.request(cardTransactionSubjects.clear, data, context);
  }

  @ReferenceOperation('sandboxSimulateCardReturn')
  @Post(':id/simulate/return')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  giveBack(
    @Param('id', cardId) id: string,
    @Body() body: SandboxCardReturnRequest,
    @Ctx() context: RequestContext,
  ): Promise<CardTransactionWire> {
    const data: SimulateCardReturnData = { cardId: id, cardTransactionId: body.cardTransactionId, amount: String(body.amount) };
    return this.call.request(cardTransactionSubjects.return, data, context);
  }
}
