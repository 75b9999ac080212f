import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { type CardStateWire, type CardTargetState, cardStates, cardTargetStates } from '@corridor/contracts';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Bodies and query of the card routes, with the reference's bounds (CardCreateRequest,
// CardUpdateRequest, listCards). Eligibility of the sources is the cards service's to decide.

/** A card tries its sources in order at every authorization; more than this is a mistake, not a need. */
const FUNDING_SOURCES_MAX = 10;
const sourcesMessage = `fundingSources must list 1 to ${FUNDING_SOURCES_MAX} internal account ids`;
const idMessage = (name: string) => `${name} must be a string of 1 to 255 characters`;

export class CardCreateRequest {
  @ApiProperty({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' })
  @IsString({ message: idMessage('cardholderId') })
  @MinLength(1, { message: idMessage('cardholderId') })
  @MaxLength(255, { message: idMessage('cardholderId') })
  cardholderId: string;

  @ApiPropertyOptional({ example: 'card-emp-aary-001' })
  @Optional()
  @IsString({ message: idMessage('platformCardId') })
  @MinLength(1, { message: idMessage('platformCardId') })
  @MaxLength(255, { message: idMessage('platformCardId') })
  platformCardId?: string;

  @ApiProperty({ enum: ['VIRTUAL'] })
  @IsIn(['VIRTUAL'], { message: 'form must be VIRTUAL' })
  form: 'VIRTUAL';

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: FUNDING_SOURCES_MAX,
    example: ['InternalAccount:019542f5-b3e7-1d02-0000-000000000002'],
  })
  @IsArray({ message: sourcesMessage })
  @ArrayMinSize(1, { message: sourcesMessage })
  @ArrayMaxSize(FUNDING_SOURCES_MAX, { message: sourcesMessage })
  @IsString({ each: true, message: 'fundingSources must hold internal account ids' })
  @MaxLength(255, { each: true, message: 'fundingSources must hold internal account ids' })
  fundingSources: string[];
}

export class CardUpdateRequest {
  @ApiPropertyOptional({ enum: cardTargetStates })
  @Optional()
  @IsIn(cardTargetStates, { message: `state must be one of ${cardTargetStates.join(', ')}` })
  state?: CardTargetState;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: FUNDING_SOURCES_MAX })
  @Optional()
  @IsArray({ message: sourcesMessage })
  @ArrayMinSize(1, { message: sourcesMessage })
  @ArrayMaxSize(FUNDING_SOURCES_MAX, { message: sourcesMessage })
  @IsString({ each: true, message: 'fundingSources must hold internal account ids' })
  @MaxLength(255, { each: true, message: 'fundingSources must hold internal account ids' })
  fundingSources?: string[];
}

class CardFilters {
  @ApiPropertyOptional() @Optional() @IsString() @MinLength(1) @MaxLength(255) cardholderId?: string;
  @ApiPropertyOptional({ description: 'Cards whose fundingSources contain this internal account id.' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  accountId?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MinLength(1) @MaxLength(255) platformCardId?: string;
  @ApiPropertyOptional({ enum: cardStates })
  @Optional()
  @IsIn(cardStates, { message: `state must be one of ${cardStates.join(', ')}` })
  state?: CardStateWire;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @Optional()
  @IsIn(['asc', 'desc'], { message: 'sortOrder must be asc or desc' })
  sortOrder?: 'asc' | 'desc';
}

export class ListCardsQuery extends IntersectionType(CardFilters, PageQuery) {}
