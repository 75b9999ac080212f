import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsBoolean, IsObject, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Request envelopes of the external-accounts resource. accountInfo is only checked to be an
// object here: its 45 accountType variants (members, formats, check digits) are validated by the
// accounts service, which owns them, and its 400 names the member by dot path.

const CURRENCY_CODE = /^[A-Z]{3,5}$/;
const currencyMessage = (name: string) => `${name} must be an ISO 4217 currency code in capitals, such as USD`;
const accountInfoDescription =
  'An accountInfo variant selected by accountType (USD_ACCOUNT, EUR_ACCOUNT, SPARK_WALLET, …), validated per variant by the accounts ' +
  'service.';

class PlatformExternalAccountFields {
  @ApiProperty({ example: 'USD' })
  @IsString({ message: currencyMessage('currency') })
  @Matches(CURRENCY_CODE, { message: currencyMessage('currency') })
  currency: string;

  @ApiPropertyOptional({ description: 'Your own identifier for the account.', maxLength: 255 })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  platformAccountId?: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: accountInfoDescription })
  @IsObject({ message: 'accountInfo must be an object with an accountType member' })
  accountInfo: Record<string, unknown>;
}

/** POST /platform/external-accounts: the platform's own account; it has no customer. */
export class PlatformExternalAccountCreateRequest extends PlatformExternalAccountFields {}

/**
 * POST /customers/external-accounts. As the reference describes customerId, leaving it out creates
 * the account on behalf of the platform (it is then found under /platform/external-accounts).
 */
export class ExternalAccountCreateRequest extends PlatformExternalAccountFields {
  @ApiPropertyOptional({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' })
  @Optional()
  @IsString()
  @MaxLength(128)
  customerId?: string;

  @ApiPropertyOptional({ default: false, description: 'Make this the customer’s default UMA deposit account, replacing any other.' })
  @Optional()
  @IsBoolean({ message: 'defaultUmaDepositAccount must be true or false' })
  defaultUmaDepositAccount?: boolean;
}

class CurrencyFilter {
  @ApiPropertyOptional({ example: 'USD' })
  @Optional()
  @Matches(CURRENCY_CODE, { message: currencyMessage('currency') })
  currency?: string;
}

class CustomerFilter {
  @ApiPropertyOptional()
  @Optional()
  @IsString()
  @MaxLength(128)
  customerId?: string;
}

export class ListPlatformExternalAccountsQuery extends IntersectionType(CurrencyFilter, PageQuery) {}
export class ListCustomerExternalAccountsQuery extends IntersectionType(CurrencyFilter, CustomerFilter, PageQuery) {}
