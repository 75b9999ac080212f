import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, MaxLength, MinLength } from 'class-validator';
import { Optional } from '../http/validation';
import { type Permission, permissions } from '@corridor/contracts';
import { DateRangeQuery, PageQuery } from '../http/list-query';

export class ApiTokenCreateRequest {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'Sandbox read-only' })
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  name: string;

  @ApiProperty({ enum: permissions, isArray: true, example: ['VIEW'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(permissions.length)
  @ArrayUnique()
  @IsIn(permissions, { each: true, message: `each value in permissions must be one of: ${permissions.join(', ')}` })
  permissions: Permission[];
}

class TokenFilters {
  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(255)
  name?: string;
}

export class ListTokensQuery extends IntersectionType(TokenFilters, DateRangeQuery, PageQuery) {}
