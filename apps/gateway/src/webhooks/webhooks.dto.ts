import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsISO8601, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Extension DTOs (beyond the reference): the webhook delivery log and redelivery.

const dateMessage = (name: string) => `${name} must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z`;

export class WebhookDeliveryFilters {
  @ApiPropertyOptional({ description: 'One webhook id (Webhook:<uuid>), the id receivers dedupe on.' })
  @Optional()
  @IsString()
  @MaxLength(200)
  webhookId?: string;

  @ApiPropertyOptional({ description: 'The resource the webhooks are about (InternalAccount:…, Customer:…, Platform:… for TEST).' })
  @Optional()
  @IsString()
  @MaxLength(200)
  resourceId?: string;
}

export class ListWebhookDeliveriesQuery extends IntersectionType(WebhookDeliveryFilters, PageQuery) {}

export class RedeliverWebhooksRequest {
  @ApiPropertyOptional({ format: 'date-time', description: 'Webhooks created at or after this time (with `to`).' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('from') })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Webhooks created before this time (with `from`).' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('to') })
  to?: string;

  @ApiPropertyOptional({ description: 'Every webhook about this resource, instead of a time range.' })
  @Optional()
  @IsString()
  @MaxLength(200)
  resourceId?: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty() webhookId!: string;
  @ApiProperty() type!: string;
  @ApiProperty() resourceId!: string;
  @ApiProperty({ enum: ['PENDING', 'DELIVERED', 'FAILED'] }) status!: string;
  @ApiProperty() attemptCount!: number;
  @ApiProperty({ description: 'false for TEST and in-flow approval webhooks, which are never retried.' }) retried!: boolean;
  @ApiPropertyOptional({ format: 'date-time' }) nextAttemptAt?: string;
  @ApiPropertyOptional() lastStatusCode?: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time' }) deliveredAt?: string;
  @ApiPropertyOptional({ format: 'date-time' }) failedAt?: string;
}

export class WebhookSigningKeyResponse {
  @ApiProperty({ description: 'PEM SubjectPublicKeyInfo of the P-256 key that verifies X-Grid-Signature.' }) publicKey!: string;
  @ApiProperty({ enum: ['ECDSA_P256_SHA256'] }) algorithm!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}
