import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { verificationStatuses } from '@corridor/contracts';
import { IsIdOf } from '../beneficial-owners/beneficial-owner.dto';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// POST /verifications (reference VerificationRequest) and the list query of GET /verifications.

export class VerificationRequest {
  @ApiProperty({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' }) @IsIdOf('Customer', 'customerId') customerId: string;
}

class VerificationFilters {
  @ApiPropertyOptional() @Optional() @IsIdOf('Customer', 'customerId') customerId?: string;
  @ApiPropertyOptional({ enum: verificationStatuses })
  @Optional()
  @IsIn(verificationStatuses, { message: `verificationStatus must be one of ${verificationStatuses.join(', ')}` })
  verificationStatus?: (typeof verificationStatuses)[number];
}

export class ListVerificationsQuery extends IntersectionType(VerificationFilters, PageQuery) {}
