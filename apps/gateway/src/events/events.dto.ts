import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsISO8601, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// GET /events (extension): the stored events of the caller's platform, by resource, request story, type and time.

const dateMessage = (name: string) => `${name} must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z`;
const ID_MAX = 200;

export class StoredEventFilters {
  @ApiPropertyOptional({ description: 'The resource (stream) the events belong to: Transaction:…, Customer:…, InternalAccount:…' })
  @Optional()
  @IsString()
  @MaxLength(ID_MAX)
  resourceId?: string;

  @ApiPropertyOptional({ description: 'Every event of one story: the X-Correlation-Id (or X-Request-Id) of the request that began it.' })
  @Optional()
  @IsString()
  @MaxLength(ID_MAX)
  correlationId?: string;

  @ApiPropertyOptional({ description: 'One event type, such as QuoteExecuted.' })
  @Optional()
  @Matches(/^[A-Za-z][A-Za-z0-9.]{0,99}$/, { message: 'type must be an event type name such as QuoteExecuted' })
  type?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events that occurred at or after this time.' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('startDate') })
  startDate?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Events that occurred at or before this time.' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('endDate') })
  endDate?: string;
}

export class ListStoredEventsQuery extends IntersectionType(StoredEventFilters, PageQuery) {}
