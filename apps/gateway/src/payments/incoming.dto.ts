import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateBy } from 'class-validator';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { Optional } from '../http/validation';

// Bodies of POST /sandbox/uma/receive and of approve / reject on a pending incoming payment. The
// UMA addresses' shape and the receiver are checked by the payments service, which answers
// INVALID_UMA_ADDRESS or USER_NOT_FOUND with the field named.

const amountMessage = `receivingCurrencyAmount must be a whole number of minor units from 1 to ${Number.MAX_SAFE_INTEGER}`;

export class SandboxUmaReceiveRequest {
  @ApiProperty({ example: '$success.usd@sandbox.uma.money' }) @IsString() @MinLength(1) @MaxLength(255) senderUmaAddress: string;
  @ApiPropertyOptional({ example: '$alice@acme.uma.money' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  receiverUmaAddress?: string;
  @ApiPropertyOptional({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  customerId?: string;
  @ApiProperty({ example: 'USD' })
  @Matches(CURRENCY_CODE, { message: 'receivingCurrencyCode must be a currency code in capitals, such as USD' })
  receivingCurrencyCode: string;
  @ApiProperty({ example: 1000, minimum: 1 })
  @IsInt({ message: amountMessage })
  @Min(1, { message: amountMessage })
  @Max(Number.MAX_SAFE_INTEGER, { message: amountMessage })
  receivingCurrencyAmount: number;
}

const MAX_INFO_KEYS = 50;
const MAX_INFO_CHARACTERS = 10_000;
const infoMessage =
  `receiverCustomerInfo must be an object of at most ${MAX_INFO_KEYS} ` + `members (${MAX_INFO_CHARACTERS} characters as JSON)`;

/** The optional bodies of approve and reject on a pending incoming payment (read with OptionalBody). */
export class ApprovePaymentRequest {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsObject({ message: infoMessage })
  @ValidateBy({
    name: 'isBoundedInfo',
    validator: {
      validate: (value) =>
        typeof value === 'object' &&
        value !== null &&
        Object.keys(value).length <= MAX_INFO_KEYS &&
        JSON.stringify(value).length <= MAX_INFO_CHARACTERS,
      defaultMessage: () => infoMessage,
    },
  })
  receiverCustomerInfo?: Record<string, unknown>;
}

export class RejectPaymentRequest {
  @ApiPropertyOptional({ example: 'RESTRICTED_JURISDICTION' })
  @Optional()
  @IsString({ message: 'reason must be a string of at most 255 characters' })
  @MaxLength(255, { message: 'reason must be a string of at most 255 characters' })
  reason?: string;
}
