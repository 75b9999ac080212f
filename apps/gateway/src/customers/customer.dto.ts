import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { DateRangeQuery, PageQuery } from '../http/list-query';

// Request bodies of the customers resource. The reference composes each variant with allOf
// (common fields + type-specific fields); IntersectionType composes the same groups here.

const customerTypes = ['INDIVIDUAL', 'BUSINESS'] as const;
const kycStatuses = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED'] as const;
const entityTypes = ['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'OTHER'] as const;
const businessTypes = [
  'AGRICULTURE_FORESTRY_FISHING_AND_HUNTING', 'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION', 'UTILITIES', 'CONSTRUCTION', 'MANUFACTURING',
  'WHOLESALE_TRADE', 'RETAIL_TRADE', 'TRANSPORTATION_AND_WAREHOUSING', 'INFORMATION', 'FINANCE_AND_INSURANCE',
  'REAL_ESTATE_AND_RENTAL_AND_LEASING', 'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES', 'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES',
  'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES', 'EDUCATIONAL_SERVICES', 'HEALTH_CARE_AND_SOCIAL_ASSISTANCE',
  'ARTS_ENTERTAINMENT_AND_RECREATION', 'ACCOMMODATION_AND_FOOD_SERVICES', 'OTHER_SERVICES', 'PUBLIC_ADMINISTRATION',
] as const;
const purposes = [
  'CONTRACTOR_PAYOUTS', 'CREATOR_PAYOUTS', 'EMPLOYEE_PAYOUTS', 'MARKETPLACE_SELLER_PAYOUTS', 'SUPPLIER_PAYMENTS', 'CROSS_BORDER_B2B',
  'AR_AUTOMATION', 'AP_AUTOMATION', 'EMBEDDED_PAYMENTS', 'PLATFORM_FEE_COLLECTION', 'P2P_TRANSFERS', 'CHARITABLE_DONATIONS', 'OTHER',
] as const;
const monthlyCounts = ['COUNT_UNDER_10', 'COUNT_10_TO_100', 'COUNT_100_TO_500', 'COUNT_500_TO_1000', 'COUNT_OVER_1000'] as const;
const monthlyVolumes = ['VOLUME_UNDER_10K', 'VOLUME_10K_TO_100K', 'VOLUME_100K_TO_1M', 'VOLUME_1M_TO_10M', 'VOLUME_OVER_10M'] as const;

export const COUNTRY_CODE = /^[A-Z]{2}$/;
export const CURRENCY_CODE = /^[A-Z]{3,5}$/;
const UMA_ADDRESS = /^\$[a-z0-9._-]{1,64}@[a-z0-9.-]{1,190}\.[a-z]{2,}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const countryMessage = (name: string) => `${name} must be an ISO 3166-1 alpha-2 country code such as US`;
const dateMessage = (name: string) => `${name} must be a calendar date in the form YYYY-MM-DD`;
const umaMessage = 'umaAddress must look like $name@domain.tld (lower case)';

const TextField = (max = 255) => [IsString(), MinLength(1), MaxLength(max)];
const apply = (...decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => decorators.forEach((decorator) => decorator(target, key));
const Text = (max = 255) => apply(...TextField(max));
const CalendarDate = (name: string) => apply(Matches(DATE, { message: dateMessage(name) }), IsISO8601({ strict: true }, { message: dateMessage(name) }));

export class Address {
  @ApiProperty() @Text() line1: string;
  @ApiPropertyOptional() @IsOptional() @Text() line2?: string;
  @ApiPropertyOptional() @IsOptional() @Text() city?: string;
  @ApiPropertyOptional() @IsOptional() @Text() state?: string;
  @ApiProperty() @Text(32) postalCode: string;
  @ApiProperty({ example: 'US' }) @Matches(COUNTRY_CODE, { message: countryMessage('country') }) country: string;
}

class BusinessInfoOptionalFields {
  @ApiPropertyOptional() @IsOptional() @Text() doingBusinessAs?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(COUNTRY_CODE, { message: countryMessage('country') }) country?: string;
  @ApiPropertyOptional() @IsOptional() @Text() registrationNumber?: string;
  @ApiPropertyOptional({ enum: entityTypes }) @IsOptional() @IsIn(entityTypes) entityType?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional() @IsArray() @ArrayMaxSize(250) @Matches(COUNTRY_CODE, { each: true, message: countryMessage('each value in countriesOfOperation') })
  countriesOfOperation?: string[];
  @ApiPropertyOptional({ enum: businessTypes }) @IsOptional() @IsIn(businessTypes) businessType?: string;
  @ApiPropertyOptional({ enum: purposes }) @IsOptional() @IsIn(purposes) purposeOfAccount?: string;
  @ApiPropertyOptional() @IsOptional() @Text() sourceOfFunds?: string;
  @ApiPropertyOptional({ enum: monthlyCounts }) @IsOptional() @IsIn(monthlyCounts) expectedMonthlyTransactionCount?: string;
  @ApiPropertyOptional({ enum: monthlyVolumes }) @IsOptional() @IsIn(monthlyVolumes) expectedMonthlyTransactionVolume?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional() @IsArray() @ArrayMaxSize(250) @Matches(COUNTRY_CODE, { each: true, message: countryMessage('each value in expectedRecipientJurisdictions') })
  expectedRecipientJurisdictions?: string[];
}

class BusinessInfoRequiredFields {
  @ApiProperty() @Text() legalName: string;
  @ApiProperty({ format: 'date' }) @CalendarDate('incorporatedOn') incorporatedOn: string;
  @ApiProperty() @Text(64) taxId: string;
}

class BusinessInfoUpdateFields {
  @ApiPropertyOptional() @IsOptional() @Text() legalName?: string;
  @ApiPropertyOptional({ format: 'date' }) @IsOptional() @CalendarDate('incorporatedOn') incorporatedOn?: string;
  @ApiPropertyOptional() @IsOptional() @Text(64) taxId?: string;
}

export class BusinessInfo extends IntersectionType(BusinessInfoRequiredFields, BusinessInfoOptionalFields) {}
export class BusinessInfoUpdate extends IntersectionType(BusinessInfoUpdateFields, BusinessInfoOptionalFields) {}

class CommonFields {
  @ApiPropertyOptional({ type: [String], example: ['USD'] })
  @IsOptional() @IsArray() @ArrayMaxSize(20)
  @Matches(CURRENCY_CODE, { each: true, message: 'each value in currencies must be 3 to 5 upper-case letters such as USD' })
  currencies?: string[];

  @ApiPropertyOptional({ format: 'email' }) @IsOptional() @IsEmail({}, { message: 'email must be an email address' }) @MaxLength(254) email?: string;

  @ApiPropertyOptional({ example: '$alice@example.com' }) @IsOptional() @Matches(UMA_ADDRESS, { message: umaMessage }) @MaxLength(255) umaAddress?: string;
}

class CreateOnlyFields {
  @ApiPropertyOptional() @IsOptional() @Text() platformCustomerId?: string;
  @ApiPropertyOptional({ example: 'US' }) @IsOptional() @Matches(COUNTRY_CODE, { message: countryMessage('region') }) region?: string;
}

class IndividualFields {
  @ApiProperty({ enum: ['INDIVIDUAL'] }) @IsIn(['INDIVIDUAL']) customerType: 'INDIVIDUAL';
  @ApiPropertyOptional({ enum: kycStatuses }) @IsOptional() @IsIn(kycStatuses) kycStatus?: (typeof kycStatuses)[number];
  @ApiPropertyOptional() @IsOptional() @Text() fullName?: string;
  @ApiPropertyOptional({ format: 'date' }) @IsOptional() @CalendarDate('birthDate') birthDate?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(COUNTRY_CODE, { message: countryMessage('nationality') }) nationality?: string;
  @ApiPropertyOptional({ type: Address }) @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
}

class BusinessFields {
  @ApiProperty({ enum: ['BUSINESS'] }) @IsIn(['BUSINESS']) customerType: 'BUSINESS';
  @ApiPropertyOptional({ enum: kycStatuses }) @IsOptional() @IsIn(kycStatuses) kybStatus?: (typeof kycStatuses)[number];
  @ApiPropertyOptional({ type: Address }) @IsOptional() @ValidateNested() @Type(() => Address) address?: Address;
}

class BusinessInfoCreateField {
  @ApiPropertyOptional({ type: BusinessInfo }) @IsOptional() @ValidateNested() @Type(() => BusinessInfo) businessInfo?: BusinessInfo;
}

class BusinessInfoUpdateField {
  @ApiPropertyOptional({ type: BusinessInfoUpdate }) @IsOptional() @ValidateNested() @Type(() => BusinessInfoUpdate) businessInfo?: BusinessInfoUpdate;
}

export class IndividualCustomerCreateRequest extends IntersectionType(CommonFields, CreateOnlyFields, IndividualFields) {}
export class BusinessCustomerCreateRequest extends IntersectionType(CommonFields, CreateOnlyFields, BusinessFields, BusinessInfoCreateField) {}
export class IndividualCustomerUpdateRequest extends IntersectionType(CommonFields, IndividualFields) {}
export class BusinessCustomerUpdateRequest extends IntersectionType(CommonFields, BusinessFields, BusinessInfoUpdateField) {}

export type CustomerCreateRequest = IndividualCustomerCreateRequest | BusinessCustomerCreateRequest;
export type CustomerUpdateRequest = IndividualCustomerUpdateRequest | BusinessCustomerUpdateRequest;

class CustomerFilters {
  @ApiPropertyOptional() @IsOptional() @Text() platformCustomerId?: string;
  @ApiPropertyOptional({ enum: customerTypes }) @IsOptional() @IsIn(customerTypes) customerType?: (typeof customerTypes)[number];
  @ApiPropertyOptional() @IsOptional() @Matches(COUNTRY_CODE, { message: countryMessage('region') }) region?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(CURRENCY_CODE, { message: 'currency must be 3 to 5 upper-case letters such as USD' }) currency?: string;
  @ApiPropertyOptional() @IsOptional() @Matches(UMA_ADDRESS, { message: umaMessage }) umaAddress?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] }) @IsOptional() @IsIn(['true', 'false'], { message: 'isIncludingDeleted must be true or false' }) isIncludingDeleted?: 'true' | 'false';
}

export class ListCustomersQuery extends IntersectionType(CustomerFilters, DateRangeQuery, PageQuery) {}
