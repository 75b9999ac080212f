import { type ArgumentMetadata, type PipeTransform, type Type as ClassType } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  validate,
} from 'class-validator';
import {
  LOCKED_CURRENCY_AMOUNT_MAX,
  MINOR_UNITS_MAX,
  purposesOfPayment,
  type CreateQuoteData,
  type PurposeOfPayment,
} from '@corridor/contracts';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { PageQuery } from '../http/list-query';
import { createValidationPipe, fieldProblems, invalidFields, IsMinorUnits, Optional } from '../http/validation';

// Query and body shapes of exchange rates, quotes and transactions, with the reference's bounds.
// The quote body's source and destination are oneOfs told apart by sourceType / destinationType;
// QuoteRequestPipe validates each against the variant it names, reporting fields by dot path.

const currencyMessage = (name: string) => `${name} must be a currency code in capitals, such as USD`;
const lockedAmountMessage = `lockedCurrencyAmount must be a whole number of minor units from 1 to ${LOCKED_CURRENCY_AMOUNT_MAX}`;
const paymentRails = [
  'ACH',
  'ACH_COLOMBIA',
  'BANK_TRANSFER',
  'BRE_B',
  'CIPS',
  'FAST',
  'FASTER_PAYMENTS',
  'FEDNOW',
  'INSTAPAY',
  'MOBILE_MONEY',
  'NEFT',
  'PAYNOW',
  'PESONET',
  'PIX',
  'RTGS',
  'RTP',
  'SEPA',
  'SEPA_INSTANT',
  'SPEI',
  'SWIFT',
  'UNIONPAY',
  'UPI',
  'WIRE',
];
const cryptoNetworks = ['SOLANA', 'ETHEREUM', 'BASE', 'POLYGON', 'SPARK', 'LIGHTNING', 'BITCOIN'];
const ID_MAX = 128;

export class ExchangeRatesQuery {
  @ApiPropertyOptional({ example: 'USD' })
  @Optional()
  @Matches(CURRENCY_CODE, { message: currencyMessage('sourceCurrency') })
  sourceCurrency?: string;

  @ApiPropertyOptional({
    type: [String],
    example: ['INR'],
    description: 'Repeat for several: ?destinationCurrency=INR&destinationCurrency=GBP',
  })
  @Optional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? [value] : value))
  @IsArray({ message: 'destinationCurrency must be one or more currency codes' })
  @ArrayMaxSize(20, { message: 'destinationCurrency can be repeated at most 20 times' })
  @Matches(CURRENCY_CODE, { each: true, message: currencyMessage('destinationCurrency') })
  destinationCurrency?: string[];

  /** Kept as text: a JSON number or a JS number could round it. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 10000, description: 'Minor units of the source currency.' })
  @Optional()
  @IsMinorUnits({ field: 'sendingAmount', min: 0n, max: MINOR_UNITS_MAX })
  sendingAmount?: string;
}

const statuses = ['CREATED', 'PENDING', 'PROCESSING', 'COMPLETED', 'REJECTED', 'FAILED', 'REFUNDED', 'EXPIRED'];
const dateMessage = (name: string) => `${name} must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z`;

class TransactionFilters {
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(ID_MAX) customerId?: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(255) platformCustomerId?: string;
  @ApiPropertyOptional({ enum: statuses })
  @Optional()
  @IsIn(statuses, { message: `status must be one of ${statuses.join(', ')}` })
  status?: string;
  @ApiPropertyOptional({ enum: ['INCOMING', 'OUTGOING'] })
  @Optional()
  @IsIn(['INCOMING', 'OUTGOING'], { message: 'type must be INCOMING or OUTGOING' })
  type?: 'INCOMING' | 'OUTGOING';
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('startDate') })
  startDate?: string;
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: dateMessage('endDate') })
  endDate?: string;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @Optional()
  @IsIn(['asc', 'desc'], { message: 'sortOrder must be asc or desc' })
  sortOrder?: 'asc' | 'desc';
  @ApiPropertyOptional({ description: 'An account id (or UMA address) on either side.' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  accountIdentifier?: string;
  @ApiPropertyOptional({ description: 'The source account id.' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  senderAccountIdentifier?: string;
  @ApiPropertyOptional({ description: 'The destination account id or UMA address.' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  receiverAccountIdentifier?: string;
  @ApiPropertyOptional({ description: 'The reference the money travels with (reconciliationInstructions or payment instructions).' })
  @Optional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  reference?: string;
}

export class ListTransactionsQuery extends IntersectionType(TransactionFilters, PageQuery) {}

class AccountQuoteSource {
  @ApiProperty({ enum: ['ACCOUNT'] }) @IsIn(['ACCOUNT']) sourceType: 'ACCOUNT';
  @ApiProperty({ example: 'InternalAccount:e85dcbd6-dced-4ec4-b756-3c3a9ea3d965' })
  @IsString()
  @MinLength(1)
  @MaxLength(ID_MAX)
  accountId: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(ID_MAX) customerId?: string;
}

class RealtimeFundingQuoteSource {
  @ApiProperty({ enum: ['REALTIME_FUNDING'] }) @IsIn(['REALTIME_FUNDING']) sourceType: 'REALTIME_FUNDING';
  @ApiProperty({ example: 'USD' }) @Matches(CURRENCY_CODE, { message: currencyMessage('currency') }) currency: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(ID_MAX) customerId?: string;
  @ApiPropertyOptional({ enum: cryptoNetworks })
  @Optional()
  @IsIn(cryptoNetworks, { message: `cryptoNetwork must be one of ${cryptoNetworks.join(', ')}` })
  cryptoNetwork?: string;
}

class AccountDestination {
  @ApiProperty({ enum: ['ACCOUNT'] }) @IsIn(['ACCOUNT']) destinationType: 'ACCOUNT';
  @ApiProperty({ example: 'ExternalAccount:a12dcbd6-dced-4ec4-b756-3c3a9ea3d123' })
  @IsString()
  @MinLength(1)
  @MaxLength(ID_MAX)
  accountId: string;
  @ApiPropertyOptional({ enum: paymentRails })
  @Optional()
  @IsIn(paymentRails, { message: `paymentRail must be one of ${paymentRails.join(', ')}` })
  paymentRail?: string;
}

class UmaAddressDestination {
  @ApiProperty({ enum: ['UMA_ADDRESS'] }) @IsIn(['UMA_ADDRESS']) destinationType: 'UMA_ADDRESS';
  @ApiProperty({ example: '$success.eur@sandbox.uma.money' }) @IsString() @MinLength(1) @MaxLength(255) umaAddress: string;
  @ApiPropertyOptional({ example: 'EUR' }) @Optional() @Matches(CURRENCY_CODE, { message: currencyMessage('currency') }) currency?: string;
}

export class QuoteRequest {
  @ApiProperty({ description: 'ACCOUNT (an internal account) or REALTIME_FUNDING, by sourceType.' })
  @IsObject({ message: 'source must be an object with a sourceType' })
  source: Record<string, unknown>;
  @ApiProperty({ description: 'ACCOUNT (internal or external account) or UMA_ADDRESS, by destinationType.' })
  @IsObject({ message: 'destination must be an object with a destinationType' })
  destination: Record<string, unknown>;
  @ApiProperty({ enum: ['SENDING', 'RECEIVING'] })
  @IsIn(['SENDING', 'RECEIVING'], { message: 'lockedCurrencySide must be SENDING or RECEIVING' })
  lockedCurrencySide: 'SENDING' | 'RECEIVING';
  @ApiProperty({ type: 'integer', minimum: 1, maximum: LOCKED_CURRENCY_AMOUNT_MAX, example: 10000 })
  @IsInt({ message: lockedAmountMessage })
  @Min(1, { message: lockedAmountMessage })
  @Max(LOCKED_CURRENCY_AMOUNT_MAX, { message: lockedAmountMessage })
  lockedCurrencyAmount: number;
  @ApiPropertyOptional({
    description:
      'From GET /receiver/uma/{address} or GET /receiver/external-account/{id}; needed to pay an UMA address outside the sandbox.',
  })
  @Optional()
  @IsString()
  @MaxLength(ID_MAX)
  lookupId?: string;
  @ApiPropertyOptional({ default: false, description: 'Only false for now: execution arrives with the next payments release.' })
  @Optional()
  @IsBoolean({ message: 'immediatelyExecute must be true or false' })
  immediatelyExecute?: boolean;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(1024) description?: string;
  @ApiPropertyOptional({ enum: purposesOfPayment })
  @Optional()
  @IsIn(purposesOfPayment, { message: `purposeOfPayment must be one of ${purposesOfPayment.join(', ')}` })
  purposeOfPayment?: PurposeOfPayment;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @Optional()
  @IsObject({ message: 'senderCustomerInfo must be an object' })
  senderCustomerInfo?: Record<string, unknown>;
}

const sourceVariants: Record<string, ClassType<object>> = { ACCOUNT: AccountQuoteSource, REALTIME_FUNDING: RealtimeFundingQuoteSource };
const destinationVariants: Record<string, ClassType<object>> = { ACCOUNT: AccountDestination, UMA_ADDRESS: UmaAddressDestination };

/** Validates the envelope, then source and destination against the variants their discriminators name. */
export class QuoteRequestPipe implements PipeTransform<unknown, Promise<CreateQuoteData>> {
  private readonly validation = createValidationPipe();

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<CreateQuoteData> {
    const body = (await this.validation.transform(value, { ...metadata, metatype: QuoteRequest })) as QuoteRequest;
    const source = await this.variant(body.source, 'source', 'sourceType', sourceVariants);
    const destination = await this.variant(body.destination, 'destination', 'destinationType', destinationVariants);
    const { lockedCurrencyAmount, source: _source, destination: _destination, ...rest } = body;
    const optional = Object.fromEntries(Object.entries(rest).filter(([, member]) => member !== undefined));
    return { ...optional, source, destination, lockedCurrencyAmount: String(lockedCurrencyAmount) } as CreateQuoteData;
  }

  private async variant<T>(
    value: Record<string, unknown>,
    field: string,
    discriminator: string,
    variants: Record<string, ClassType<object>>,
  ): Promise<T> {
    const tag = value[discriminator];
    const variant = typeof tag === 'string' && Object.prototype.hasOwnProperty.call(variants, tag) ? variants[tag] : undefined;
    if (!variant)
      throw invalidFields([
        { field: `${field}.${discriminator}`, problem: `${field}.${discriminator} must be one of ${Object.keys(variants).join(', ')}` },
      ]);
    const errors = await validate(plainToInstance(variant, value), {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
    });
    if (errors.length > 0) throw invalidFields(fieldProblems(errors, field));
    return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as T;
  }
}
