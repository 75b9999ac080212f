import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import { type CardWire, type CreateCardData, type ListCardsData, type Page, type RequestContext, subjects, type UpdateCardData } from '@corridor/contracts';
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
  update(@Param('id', cardId) id: string, @Body() body: CardUpdateRequest, @Ctx() context: RequestContext): Promise<CardWire> {
    return this.call.request(subjects.cards.card.update, { cardId: id, ...defined({ ...body }) } satisfies UpdateCardData, context);
  }
}
