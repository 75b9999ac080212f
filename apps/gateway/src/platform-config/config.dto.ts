import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsFQDN,
  IsIn,
  IsInt,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { Clearable, Optional } from '../http/validation';

const customerInfoFieldNames = [
  'FULL_NAME',
  'BIRTH_DATE',
  'NATIONALITY',
  'PHONE_NUMBER',
  'EMAIL',
  'POSTAL_ADDRESS',
  'TAX_ID',
  'REGISTRATION_NUMBER',
  'USER_TYPE',
  'COUNTRY_OF_RESIDENCE',
  'ACCOUNT_IDENTIFIER',
  'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS',
  'PURPOSE_OF_PAYMENT',
  'ULTIMATE_INSTITUTION_COUNTRY',
  'IDENTIFIER',
  'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME',
  'ID_TYPE',
  'ID_NUMBER',
] as const;
const transactionTypes = ['INCOMING', 'OUTGOING'] as const;
const httpUrl = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const urlMessage = (name: string) => `${name} must be an http(s) URL such as https://example.com/webhooks`;

export class CounterpartyFieldDefinition {
  @ApiProperty({ enum: customerInfoFieldNames })
  @IsIn(customerInfoFieldNames)
  name: string;

  @ApiProperty()
  @IsBoolean()
  mandatory: boolean;
}

export class PlatformCurrencyConfig {
  @ApiProperty({ example: 'USD' })
  @Matches(/^[A-Z]{3,5}$/, { message: 'currencyCode must be an upper-case currency code such as USD' })
  currencyCode: string;

  @ApiProperty({ minimum: 0, description: 'Smallest unit of the currency.' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  minAmount: number;

  @ApiProperty({ minimum: 0, description: 'Smallest unit of the currency.' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  maxAmount: number;

  @ApiProperty({ type: [CounterpartyFieldDefinition] })
  @IsArray()
  @ArrayMaxSize(customerInfoFieldNames.length)
  @ValidateNested({ each: true })
  @Type(() => CounterpartyFieldDefinition)
  requiredCounterpartyFields: CounterpartyFieldDefinition[];

  @ApiProperty({ enum: transactionTypes, isArray: true })
  @IsArray()
  @ArrayMaxSize(transactionTypes.length)
  @IsIn(transactionTypes, { each: true })
  enabledTransactionTypes: ('INCOMING' | 'OUTGOING')[];
}

export class EmbeddedWalletConfig {
  @ApiPropertyOptional({ maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  appName?: string;

  @ApiPropertyOptional({ minimum: 4, maximum: 12 })
  @Optional()
  @IsInt()
  @Min(4)
  @Max(12)
  otpLength?: number;

  @ApiPropertyOptional()
  @Optional()
  @IsBoolean()
  alphanumeric?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: 86400 })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(86400)
  expirationSeconds?: number;

  @ApiPropertyOptional({ format: 'email', maxLength: 255 })
  @Optional()
  @IsEmail()
  @MaxLength(255)
  sendFromEmailAddress?: string;

  @ApiPropertyOptional({ maxLength: 255 })
  @Optional()
  @IsString()
  @MaxLength(255)
  sendFromEmailSenderName?: string;

  @ApiPropertyOptional({ format: 'email', maxLength: 255 })
  @Optional()
  @IsEmail()
  @MaxLength(255)
  replyToEmailAddress?: string;

  @ApiPropertyOptional({ format: 'uri', maxLength: 512 })
  @Optional()
  @IsUrl(httpUrl, { message: urlMessage('logoUrl') })
  @MaxLength(512)
  logoUrl?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 20,
    description:
      'Corridor extension (decision 0021): the OAuth client ids whose OIDC ID tokens OAUTH credentials accept ' +
      '(the token’s aud must be one). ' +
      'Required for OAUTH credentials on production platforms; sandbox platforms without it accept any aud.',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(255, { each: true })
  oidcAudiences?: string[];
}

export class PlatformConfigUpdateRequest {
  @ApiPropertyOptional({ example: 'mycompany.com' })
  @Optional()
  @IsFQDN({ require_tld: true }, { message: 'umaDomain must be a domain name such as mycompany.com' })
  @MaxLength(253)
  umaDomain?: string;

  @ApiPropertyOptional({
    example: 'https://api.mycompany.com/webhooks',
    nullable: true,
    description:
      'null clears it (an extension: the reference cannot unset it); without an endpoint incoming payments are approved without asking.',
  })
  @Clearable()
  @IsUrl(httpUrl, { message: urlMessage('webhookEndpoint') })
  @MaxLength(2048)
  webhookEndpoint?: string | null;

  @ApiPropertyOptional({ type: [PlatformCurrencyConfig] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => PlatformCurrencyConfig)
  supportedCurrencies?: PlatformCurrencyConfig[];

  @ApiPropertyOptional({ type: EmbeddedWalletConfig })
  @Optional()
  @ValidateNested()
  @Type(() => EmbeddedWalletConfig)
  embeddedWalletConfig?: EmbeddedWalletConfig;
}
