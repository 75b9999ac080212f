import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsString, Matches, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { Optional } from '../http/validation';

// Bodies of the three card simulators (the reference's SandboxCard*Request). Every required member
// is checked here; whether the card and transaction exist, their states and the amounts against
// what was held or settled are the cards service's to answer.

const positive = `amount must be a whole number of minor units from 1 to ${Number.MAX_SAFE_INTEGER}`;
const nonNegative = `amount must be a whole number of minor units from 0 to ${Number.MAX_SAFE_INTEGER}`;
const CARD_TRANSACTION_ID = /^CardTransaction:[0-9a-fA-F-]{36}$/;

export class CardCurrency {
  @ApiProperty({ example: 'USD' })
  @Matches(CURRENCY_CODE, { message: 'currency.code must be a currency code in capitals, such as USD' })
  code: string;
}

export class CardMerchant {
  @ApiProperty({ example: 'BLUE BOTTLE COFFEE SF' }) @IsString() @MinLength(1) @MaxLength(255) descriptor: string;
  @ApiPropertyOptional({ example: '5814' })
  @Optional()
  @Matches(/^[0-9]{4}$/, { message: 'merchant.mcc must be four digits' })
  mcc?: string;
  @ApiPropertyOptional({ example: 'US' })
  @Optional()
  @Matches(/^[A-Z]{2}$/, { message: 'merchant.country must be a two-letter country code in capitals' })
  country?: string;
}

export class SandboxCardAuthorizationRequest {
  @ApiProperty({ example: 1250, minimum: 1 })
  @IsInt({ message: positive })
  @Min(1, { message: positive })
  @Max(Number.MAX_SAFE_INTEGER, { message: positive })
  amount: number;
  // ValidateNested alone lets a missing object through, so each nested member also needs IsObject.
  @ApiProperty({ type: CardCurrency })
  @IsObject({ message: 'currency must be an object such as {"code":"USD"}' })
  @ValidateNested()
  @Type(() => CardCurrency)
  currency: CardCurrency;
  @ApiProperty({ type: CardMerchant })
  @IsObject({ message: 'merchant must be an object with a descriptor' })
  @ValidateNested()
  @Type(() => CardMerchant)
  merchant: CardMerchant;
}

export class SandboxCardClearingRequest {
  @ApiProperty({ example: 'CardTransaction:019542f5-b3e7-1d02-0000-000000000100' })
  @Matches(CARD_TRANSACTION_ID, { message: 'cardTransactionId must look like CardTransaction:<uuid>' })
  cardTransactionId: string;
  @ApiProperty({ example: 1500, minimum: 0 })
  @IsInt({ message: nonNegative })
  @Min(0, { message: nonNegative })
  @Max(Number.MAX_SAFE_INTEGER, { message: nonNegative })
  amount: number;
}

export class SandboxCardReturnRequest {
  @ApiProperty({ example: 'CardTransaction:019542f5-b3e7-1d02-0000-000000000100' })
  @Matches(CARD_TRANSACTION_ID, { message: 'cardTransactionId must look like CardTransaction:<uuid>' })
  cardTransactionId: string;
  @ApiProperty({ example: 1500, minimum: 1 })
  @IsInt({ message: positive })
  @Min(1, { message: positive })
  @Max(Number.MAX_SAFE_INTEGER, { message: positive })
  amount: number;
}
