import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type CardIdData,
  type CardWire,
  type CreateCardData,
  type ListCardsData,
  type Page,
  type RequestContext,
  type SignedReply,
  subjects,
  type UpdateCardData,
  type WalletAuthorization,
  type WalletFundedChangeData,
} from '@corridor/contracts';
import { answer, applyAuthorized, walletHeaders } from '../auth-credentials/signed-reply';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { AsOfQuery, defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { CardCreateRequest, CardUpdateRequest, ListCardsQuery } from './cards.dto';
import { ReferenceOperation } from '../http/openapi/operation';

// The reference has no card-specific 404 code; REFERENCE_NOT_FOUND is its generic one.
const cardId = new IdPipe('Card', 'REFERENCE_NOT_FOUND', 'Card');

@ApiTags('Cards')
@ApiBasicAuth()
@Controller('cards')
export class CardsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createCard', { signature: 'signedRetry' })
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  @ApiOperation({
    summary: 'Issue a card',
    description:
      'A card with an EMBEDDED_WALLET among its fundingSources binds the wallet only with its signed retry, as PATCH does ' +
      '(a Corridor departure from the reference, decision 0020): the first call answers 202 with {payloadToSign, requestId, expiresAt} ' +
      'and issues nothing; the same body again with Grid-Wallet-Signature (a stamp over payloadToSign by an active session of the ' +
      'wallet) ' +
      'and Request-Id issues the card, whose id payloadToSign names. The wallet then funds that card, and only it, until the card is ' +
      'closed or the wallet unbound. Signature errors are 401 with the reference codes (WALLET_SIGNATURE_MISSING, ' +
      'WALLET_SIGNATURE_MALFORMED, WALLET_SIGNATURE_INVALID, WALLET_SIGNATURE_BODY_MISMATCH, REQUEST_ID_MISSING, INVALID_SIGNATURE).',
  })
  async create(
    @Body() body: CardCreateRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const card = defined({ ...body }) satisfies CreateCardData;
    const sources = Array.isArray(body.fundingSources) ? body.fundingSources : [];
    const data: WalletFundedChangeData = {
      accountIds: sources,
      bindAccountIds: sources,
      operation: 'CREATE_CARD',
      targetId: body.cardholderId,
      body: card,
      ...walletHeaders(request),
    };
    const wallet = await this.call.request<SignedReply<WalletAuthorization>>(
      subjects.accounts.embeddedWallet.walletFundedChange,
      data,
      context,
    );
    if (wallet.status === 202) return answer(reply, wallet);
    // The card takes the id the wallet's owner signed for, so the wallet's consent names this card.
    const cardId = wallet.body?.resourceId;
    return applyAuthorized(this.call, context, wallet.body, () =>
      this.call.request<CardWire>(subjects.cards.card.create, { ...card, ...(cardId ? { cardId } : {}) } satisfies CreateCardData, context),
    );
  }

  @ReferenceOperation('listCards')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListCardsQuery, @Ctx() context: RequestContext): Promise<Page<CardWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.cards.card.list, { ...defined(filters), ...pageOf(query) } satisfies ListCardsData, context);
  }

  @ReferenceOperation('getCardById')
  @Get(':id')
  @RequiresPermission('VIEW')
  get(@Param('id', cardId) id: string, @Query() query: AsOfQuery, @Ctx() context: RequestContext): Promise<CardWire> {
    return this.call.request(subjects.cards.card.get, { cardId: id, ...defined(query) } satisfies CardIdData, context);
  }

  @ReferenceOperation('updateCardById', { signature: 'signedRetry' })
  @Patch(':id')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiOperation({
    summary: 'Change a card’s state or funding sources',
    description:
      'A card funded by an EMBEDDED_WALLET, now or after the change, changes only with the wallet’s signed retry: 202 with ' +
      '{payloadToSign, requestId, expiresAt}, then the same body with Grid-Wallet-Signature and Request-Id. A wallet the card keeps ' +
      'consents to fund it; closing the card or unbinding the wallet ends that consent (decision 0020).',
  })
  async update(
    @Param('id', cardId) id: string,
    @Body() body: CardUpdateRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    // A card funded by an Embedded Wallet (now or after this change) changes only with the wallet's
    // signed retry; a wallet the card keeps after the change consents to fund it (decision 0020).
    const card = await this.call.request<CardWire>(subjects.cards.card.get, { cardId: id }, context);
    const accountIds = [...card.fundingSources, ...(Array.isArray(body.fundingSources) ? body.fundingSources : [])];
    const bindAccountIds = body.state === 'CLOSED' ? [] : Array.isArray(body.fundingSources) ? body.fundingSources : card.fundingSources;
    const data: WalletFundedChangeData = {
      accountIds,
      bindAccountIds,
      operation: 'UPDATE_CARD',
      targetId: id,
      body: defined({ ...body }),
      ...walletHeaders(request),
    };
    const wallet = await this.call.request<SignedReply<WalletAuthorization>>(
      subjects.accounts.embeddedWallet.walletFundedChange,
      data,
      context,
    );
    if (wallet.status === 202) return answer(reply, wallet);
    return applyAuthorized(this.call, context, wallet.body, () =>
      this.call.request<CardWire>(subjects.cards.card.update, { cardId: id, ...defined({ ...body }) } satisfies UpdateCardData, context),
    );
  }
}
