import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import { type CardWire, type CreateCardData, type ListCardsData, type Page, type RequestContext, type SignedReply, subjects, type UpdateCardData, type WalletAuthorization, type WalletFundedChangeData } from '@corridor/contracts';
import { answer, applyAuthorized, walletHeaders } from '../auth-credentials/signed-reply';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { CardCreateRequest, CardUpdateRequest, ListCardsQuery } from './cards.dto';

// The reference has no card-specific 404 code; REFERENCE_NOT_FOUND is its generic one.
const cardId = new IdPipe('Card', 'REFERENCE_NOT_FOUND', 'Card');

@ApiTags('Cards')
@ApiBasicAuth()
@Controller('cards')
export class CardsController {
  constructor(private readonly call: ServiceCall) {}

  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(@Body() body: CardCreateRequest, @Ctx() context: RequestContext): Promise<CardWire> {
    return this.call.request(subjects.cards.card.create, defined({ ...body }) satisfies CreateCardData, context);
  }

  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListCardsQuery, @Ctx() context: RequestContext): Promise<Page<CardWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.cards.card.list, { ...defined(filters), ...pageOf(query) } satisfies ListCardsData, context);
  }

  @Get(':id')
  @RequiresPermission('VIEW')
  get(@Param('id', cardId) id: string, @Ctx() context: RequestContext): Promise<CardWire> {
    return this.call.request(subjects.cards.card.get, { cardId: id }, context);
  }

  @Patch(':id')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  async update(
    @Param('id', cardId) id: string,
    @Body() body: CardUpdateRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    // A card funded by an Embedded Wallet (now or after this change) changes only with the wallet's signed retry.
    const card = await this.call.request<CardWire>(subjects.cards.card.get, { cardId: id }, context);
    const accountIds = [...card.fundingSources, ...(Array.isArray(body.fundingSources) ? body.fundingSources : [])];
    const data: WalletFundedChangeData = { accountIds, operation: 'UPDATE_CARD', targetId: id, body: defined({ ...body }), ...walletHeaders(request) };
    const wallet = await this.call.request<SignedReply<WalletAuthorization>>(subjects.accounts.embeddedWallet.walletFundedChange, data, context);
    if (wallet.status === 202) return answer(reply, wallet);
    return applyAuthorized(this.call, context, wallet.body, () => this.call.request<CardWire>(subjects.cards.card.update, { cardId: id, ...defined({ ...body }) } satisfies UpdateCardData, context));
  }
}
