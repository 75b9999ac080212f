import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsObject, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { type FieldProblem, invalidFields, Optional } from '../http/validation';

// Bodies of POST /sandbox/uma/receive and of approve / reject on a pending incoming payment. The
// UMA addresses' shape and the receiver are checked by the payments service, which answers
// INVALID_UMA_ADDRESS or USER_NOT_FOUND with the field named.

const amountMessage = `receivingCurrencyAmount must be a whole number of minor units from 1 to ${Number.MAX_SAFE_INTEGER}`;

export class SandboxUmaReceiveRequest {
  @ApiProperty({ example: '$success.usd@sandbox.uma.money' }) @IsString() @MinLength(1) @MaxLength(255) senderUmaAddress: string;
  @ApiPropertyOptional({ example: '$alice@acme.uma.money' }) @Optional() @IsString() @MinLength(1) @MaxLength(255) receiverUmaAddress?: string;
  @ApiPropertyOptional({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' }) @Optional() @IsString() @MinLength(1) @MaxLength(128) customerId?: string;
  @ApiProperty({ example: 'USD' }) @Matches(CURRENCY_CODE, { message: 'receivingCurrencyCode must be a currency code in capitals, such as USD' }) receivingCurrencyCode: string;
  @ApiProperty({ example: 1000, minimum: 1 })
  @IsInt({ message: amountMessage })
  @Min(1, { message: amountMessage })
  @Max(Number.MAX_SAFE_INTEGER, { message: amountMessage })
  receivingCurrencyAmount: number;
}

/** Documentation only: approve and reject take an optional body, checked by optionalBody below. */
export class ApprovePaymentRequest {
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @Optional() @IsObject() receiverCustomerInfo?: Record<string, unknown>;
}

export class RejectPaymentRequest {
  @ApiPropertyOptional({ example: 'RESTRICTED_JURISDICTION' }) @Optional() @IsString() @MaxLength(255) reason?: string;
}

const MAX_INFO_KEYS = 50;

/**
 * The reference makes these bodies optional, which the global body pipes (a body must be an
 * object) cannot express, so the raw body is checked here: absent or {} is fine; anything else
 * must be an object with only the named member, of the right type.
 */
export const optionalBody = (raw: unknown, member: 'receiverCustomerInfo' | 'reason'): Record<string, unknown> => {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidFields([{ field: '(body)', problem: 'the request body must be a JSON object' }]);
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(raw)) if (key !== member) problems.push({ field: key, problem: `property ${key} should not exist` });
  const value = (raw as Record<string, unknown>)[member];
  if (value !== undefined) {
    if (member === 'reason' && (typeof value !== 'string' || value.length > 255 || value.includes('\u0000'))) problems.push({ field: member, problem: 'reason must be a string of at most 255 characters' });
    if (member === 'receiverCustomerInfo' && (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length > MAX_INFO_KEYS || JSON.stringify(value).length > 10_000 || JSON.stringify(value).includes('\\u0000'))) {
      problems.push({ field: member, problem: `receiverCustomerInfo must be an object of at most ${MAX_INFO_KEYS} members` });
    }
  }
  if (problems.length > 0) throw invalidFields(problems);
  return raw as Record<string, unknown>;
};
