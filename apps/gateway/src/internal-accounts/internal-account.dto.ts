import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { type InternalAccountTypeWire, SANDBOX_FUND_AMOUNT_MAX } from '@corridor/contracts';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { AsOfQuery, PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Query and body shapes of the internal-account routes, with the reference's bounds.

const accountTypes: readonly InternalAccountTypeWire[] = ['INTERNAL_FIAT', 'INTERNAL_CRYPTO', 'EMBEDDED_WALLET'];
const typeMessage = `type must be one of ${accountTypes.join(', ')}`;
const currencyMessage = 'currency must be 3 to 5 upper-case letters such as USD';
const amountMessage = `amount must be a whole number of minor units from 1 to ${SANDBOX_FUND_AMOUNT_MAX}`;

class AccountFilters {
  @ApiPropertyOptional({ example: 'USD' }) @Optional() @Matches(CURRENCY_CODE, { message: currencyMessage }) currency?: string;
  @ApiPropertyOptional({ enum: accountTypes }) @Optional() @IsIn(accountTypes, { message: typeMessage }) type?: InternalAccountTypeWire;
}

class CustomerFilter {
  @ApiPropertyOptional({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' })
  @Optional()
  @IsString()
  @MaxLength(255)
  customerId?: string;
}

export class ListCustomerInternalAccountsQuery extends IntersectionType(AccountFilters, CustomerFilter, PageQuery, AsOfQuery) {}
export class ListPlatformInternalAccountsQuery extends IntersectionType(AccountFilters, AsOfQuery) {}

export class InternalAccountUpdateRequest {
  @ApiPropertyOptional({ description: 'Wallet privacy of an EMBEDDED_WALLET account.' })
  @Optional()
  @IsBoolean({ message: 'privateEnabled must be true or false' })
  privateEnabled?: boolean;
}

export class SandboxFundRequest {
  @ApiProperty({ minimum: 1, maximum: SANDBOX_FUND_AMOUNT_MAX, example: 100000, description: "Minor units of the account's currency." })
  @IsInt({ message: amountMessage })
  @Min(1, { message: amountMessage })
  @Max(SANDBOX_FUND_AMOUNT_MAX, { message: amountMessage })
  amount: number;
}
