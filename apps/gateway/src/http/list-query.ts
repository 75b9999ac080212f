import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsISO8601, IsString, Max, MaxLength, Min } from 'class-validator';
import { Optional } from './validation';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '@corridor/contracts';

// The paging and date-range members every list shares; list query DTOs compose these fields
// with IntersectionType, the way the reference repeats them on each list operation.

const limitMessage = `limit must be an integer from 1 to ${PAGE_LIMIT_MAX}`;
const dateMessage = (name: string) => `${name} must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z`;

export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })
  @Optional()
  @Type(() => Number)
  @IsInt({ message: limitMessage })
  @Min(1, { message: limitMessage })
  @Max(PAGE_LIMIT_MAX, { message: limitMessage })
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page, unchanged.' })
  @Optional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;
}

export class DateRangeQuery {
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('createdAfter') })
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('createdBefore') })
  createdBefore?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('updatedAfter') })
  updatedAfter?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('updatedBefore') })
  updatedBefore?: string;
}

/**
 * A Corridor extension on reads (decisions 0037 and 0039): the resource as it stood at a past time,
 * folded from its stored events; before it existed it is a 404 like an unknown id.
 */
export class AsOfQuery {
  @ApiPropertyOptional({
    format: 'date-time',
    description:
      'Corridor extension: the resource as it stood at this time (events that occurred at or before it, folded as the read model folds ' +
      'them).',
  })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('asOf') })
  asOf?: string;
}

/** Drops absent members so the NATS payload carries only what the client sent. */
export const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;

export const pageOf = (query: PageQuery): { limit: number; cursor?: string } => ({
  limit: query.limit ?? PAGE_LIMIT_DEFAULT,
  ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
});
