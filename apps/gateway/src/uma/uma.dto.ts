import type { PipeTransform } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { cryptoNetworks, DomainError, UMA_ADDRESS_MAX_LENGTH } from '@corridor/contracts';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Query and body shapes of receiver lookups, UMA providers, discoveries, the crypto fee estimate
// and invitations. Shapes and bounds only; whether an address, account or currency can be used is
// the payments service's answer.

const umaMessage = (name: string) => `${name} must be an UMA address like $alice@example.com`;
const currencyMessage = (name: string) => `${name} must be a currency code in capitals, such as USD`;
const countryMessage = (name: string) => `${name} must be an ISO 3166-1 alpha-2 country code in capitals, such as US`;
const COUNTRY_CODE = /^[A-Z]{2}$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Both optional; what a lookup does without them is said in LOOKUP_SENDER_NOTE (the routes' /docs description). */
export class LookupQuery {
  @ApiPropertyOptional({
    description: 'UMA address of the sender. Optional, like customerId; if given it must be well-formed.',
    example: '$alice@acme.example',
  })
  @Optional()
  @IsString({ message: umaMessage('senderUmaAddress') })
  @MaxLength(UMA_ADDRESS_MAX_LENGTH, { message: umaMessage('senderUmaAddress') })
  senderUmaAddress?: string;

  @ApiPropertyOptional({
    description: 'The sending customer. Optional, like senderUmaAddress; if given it must be a live customer of this platform.',
    example: 'Customer:019542f5-b3e7-1d02-0000-000000000001',
  })
  @Optional()
  @IsString()
  @MaxLength(128)
  customerId?: string;
}

export const LOOKUP_SENDER_NOTE =
  'senderUmaAddress and customerId are both optional. A sender named by either is checked (a well-formed address; a live customer of ' +
  'this platform) ' +
  ('and recorded with the lookup. Without one, the lookup is of the receiver alone: the same currencies, estimated rates, limits and ' +
    'lookupId, and ') +
  ('requiredPayerDataFields lists every field any payer must give; no payer is checked. A quote citing the lookupId checks its own payer ' +
    'either way.');

const booleanText = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

class UmaProviderFilters {
  @ApiPropertyOptional({ example: 'US' })
  @Optional()
  @Matches(COUNTRY_CODE, { message: countryMessage('countryCode') })
  countryCode?: string;
  @ApiPropertyOptional({ example: 'USD' })
  @Optional()
  @Matches(CURRENCY_CODE, { message: currencyMessage('currencyCode') })
  currencyCode?: string;
  @ApiPropertyOptional({ description: 'Include providers off your allowlist (default true).' })
  @Optional()
  @Transform(booleanText)
  @IsBoolean({ message: 'hasBlockedProviders must be true or false' })
  hasBlockedProviders?: boolean;
  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @Optional()
  @IsIn(['asc', 'desc'], { message: 'sortOrder must be asc or desc' })
  sortOrder?: 'asc' | 'desc';
}

export class ListUmaProvidersQuery extends IntersectionType(UmaProviderFilters, PageQuery) {}

export class DiscoveriesQuery {
  @ApiPropertyOptional({ example: 'PH' }) @Optional() @Matches(COUNTRY_CODE, { message: countryMessage('country') }) country?: string;
  @ApiPropertyOptional({ example: 'PHP' }) @Optional() @Matches(CURRENCY_CODE, { message: currencyMessage('currency') }) currency?: string;
}

const amountMessage = (name: string) => `${name} must be a whole number of minor units from 1 to ${MAX_SAFE}`;

export class EstimateWithdrawalFeeRequest {
  @ApiProperty({ example: 'InternalAccount:a12dcbd6-dced-4ec4-b756-3c3a9ea3d123' })
  @IsString()
  @MinLength(1)
  @MaxLength(128)
  internalAccountId: string;
  @ApiProperty({ example: 'USDC' }) @Matches(CURRENCY_CODE, { message: currencyMessage('currency') }) currency: string;
  @ApiProperty({ enum: cryptoNetworks })
  @IsIn(cryptoNetworks, { message: `cryptoNetwork must be one of ${cryptoNetworks.join(', ')}` })
  cryptoNetwork: string;
  @ApiProperty({ type: 'integer', minimum: 1, example: 1000000 })
  @IsInt({ message: amountMessage('amount') })
  @Min(1, { message: amountMessage('amount') })
  @Max(MAX_SAFE, { message: amountMessage('amount') })
  amount: number;
  @ApiProperty({ example: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU' })
  @IsString()
  @MinLength(1)
  @MaxLength(2048)
  destinationAddress: string;
}

export class CreateInvitationRequest {
  @ApiProperty({ example: '$alice@acme.example', description: 'The UMA address of one of your customers.' })
  @IsString({ message: umaMessage('inviterUma') })
  @MaxLength(UMA_ADDRESS_MAX_LENGTH, { message: umaMessage('inviterUma') })
  inviterUma: string;
  @ApiPropertyOptional({ example: 'Bob' }) @Optional() @IsString() @MinLength(1) @MaxLength(255) firstName?: string;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Minor units of the inviter’s currency.' })
  @Optional()
  @IsInt({ message: amountMessage('amountToSend') })
  @Min(1, { message: amountMessage('amountToSend') })
  @Max(MAX_SAFE, { message: amountMessage('amountToSend') })
  amountToSend?: number;
  @ApiPropertyOptional({ format: 'date-time' })
  @Optional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an RFC 3339 date-time such as 2025-10-13T00:00:00Z' })
  expiresAt?: string;
}

export class ClaimInvitationRequest {
  @ApiProperty({ example: '$bob@other.example' })
  @IsString({ message: umaMessage('inviteeUma') })
  @MaxLength(UMA_ADDRESS_MAX_LENGTH, { message: umaMessage('inviteeUma') })
  inviteeUma: string;
}

/** A code of the wrong shape cannot name an invitation: 404, like an unknown one. */
export class InvitationCodePipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value === 'string' && /^[0-9a-z]{4,32}$/.test(value)) return value;
    throw new DomainError(
      'INVITATION_NOT_FOUND',
      'not_found',
      `Invitation ${String(value).slice(0, 64)} was not found. Codes are the lower-case letters and digits of the invitation's url.`,
    );
  }
}

/** The UMA address in the path, already percent-decoded by the router; its format is the service's check. */
export class UmaAddressPathPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value === 'string' && value.length <= UMA_ADDRESS_MAX_LENGTH) return value;
    throw new DomainError(
      'INVALID_UMA_ADDRESS',
      'validation',
      `receiverUmaAddress must be an UMA address like $alice@example.com of at most ${UMA_ADDRESS_MAX_LENGTH} characters.`,
      { field: 'receiverUmaAddress' },
    );
  }
}
