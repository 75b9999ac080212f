import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsISO8601, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { Optional } from '../http/validation';
import { DateRangeQuery, PageQuery } from '../http/list-query';

// Request bodies of the customers resource. The reference composes each variant with allOf
// (common fields + type-specific fields); IntersectionType composes the same groups here.

const customerTypes = ['INDIVIDUAL', 'BUSINESS'] as const;
const kycStatuses = ['UNVERIFIED', 'PENDING', 'APPROVED', 'REJECTED'] as const;
const entityTypes = ['SOLE_PROPRIETORSHIP', 'PARTNERSHIP', 'LLC', 'CORPORATION', 'S_CORPORATION', 'NON_PROFIT', 'OTHER'] as const;
const businessTypes = [
  'AGRICULTURE_FORESTRY_FISHING_AND_HUNTING',
  'MINING_QUARRYING_AND_OIL_AND_GAS_EXTRACTION',
  'UTILITIES',
  'CONSTRUCTION',
  'MANUFACTURING',
  'WHOLESALE_TRADE',
  'RETAIL_TRADE',
  'TRANSPORTATION_AND_WAREHOUSING',
  'INFORMATION',
  'FINANCE_AND_INSURANCE',
  'REAL_ESTATE_AND_RENTAL_AND_LEASING',
  'PROFESSIONAL_SCIENTIFIC_AND_TECHNICAL_SERVICES',
  'MANAGEMENT_OF_COMPANIES_AND_ENTERPRISES',
  'ADMINISTRATIVE_AND_SUPPORT_AND_WASTE_MANAGEMENT_AND_REMEDIATION_SERVICES',
  'EDUCATIONAL_SERVICES',
  'HEALTH_CARE_AND_SOCIAL_ASSISTANCE',
  'ARTS_ENTERTAINMENT_AND_RECREATION',
  'ACCOMMODATION_AND_FOOD_SERVICES',
  'OTHER_SERVICES',
  'PUBLIC_ADMINISTRATION',
] as const;
const purposes = [
  'CONTRACTOR_PAYOUTS',
  'CREATOR_PAYOUTS',
  'EMPLOYEE_PAYOUTS',
  'MARKETPLACE_SELLER_PAYOUTS',
  'SUPPLIER_PAYMENTS',
  'CROSS_BORDER_B2B',
  'AR_AUTOMATION',
  'AP_AUTOMATION',
  'EMBEDDED_PAYMENTS',
  'PLATFORM_FEE_COLLECTION',
  'P2P_TRANSFERS',
  'CHARITABLE_DONATIONS',
  'OTHER',
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
const apply =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorator) => decorator(target, key));
const Text = (max = 255) => apply(...TextField(max));
const CalendarDate = (name: string) =>
  apply(Matches(DATE, { message: dateMessage(name) }), IsISO8601({ strict: true }, { message: dateMessage(name) }));

export class Address {
  @ApiProperty() @Text() line1: string;
  @ApiPropertyOptional() @Optional() @Text() line2?: string;
  @ApiPropertyOptional() @Optional() @Text() city?: string;
  @ApiPropertyOptional() @Optional() @Text() state?: string;
  @ApiProperty() @Text(32) postalCode: string;
  @ApiProperty({ example: 'US' }) @Matches(COUNTRY_CODE, { message: countryMessage('country') }) country: string;
}

class BusinessInfoOptionalFields {
  @ApiPropertyOptional() @Optional() @Text() doingBusinessAs?: string;
  @ApiPropertyOptional() @Optional() @Matches(COUNTRY_CODE, { message: countryMessage('country') }) country?: string;
  @ApiPropertyOptional() @Optional() @Text() registrationNumber?: string;
  @ApiPropertyOptional({ enum: entityTypes }) @Optional() @IsIn(entityTypes) entityType?: string;
  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(250)
  @Matches(COUNTRY_CODE, { each: true, message: countryMessage('each value in countriesOfOperation') })
  countriesOfOperation?: string[];
  @ApiPropertyOptional({ enum: businessTypes }) @Optional() @IsIn(businessTypes) businessType?: string;
  @ApiPropertyOptional({ enum: purposes }) @Optional() @IsIn(purposes) purposeOfAccount?: string;
  @ApiPropertyOptional() @Optional() @Text() sourceOfFunds?: string;
  @ApiPropertyOptional({ enum: monthlyCounts }) @Optional() @IsIn(monthlyCounts) expectedMonthlyTransactionCount?: string;
  @ApiPropertyOptional({ enum: monthlyVolumes }) @Optional() @IsIn(monthlyVolumes) expectedMonthlyTransactionVolume?: string;
  @ApiPropertyOptional({ type: [String] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(250)
  @Matches(COUNTRY_CODE, { each: true, message: countryMessage('each value in expectedRecipientJurisdictions') })
  expectedRecipientJurisdictions?: string[];
}

class BusinessInfoRequiredFields {
  @ApiProperty() @Text() legalName: string;
  @ApiProperty({ format: 'date' }) @CalendarDate('incorporatedOn') incorporatedOn: string;
  @ApiProperty() @Text(64) taxId: string;
}

class BusinessInfoUpdateFields {
  @ApiPropertyOptional() @Optional() @Text() legalName?: string;
  @ApiPropertyOptional({ format: 'date' }) @Optional() @CalendarDate('incorporatedOn') incorporatedOn?: string;
  @ApiPropertyOptional() @Optional() @Text(64) taxId?: string;
}

export class BusinessInfo extends IntersectionType(BusinessInfoRequiredFields, BusinessInfoOptionalFields) {}
export class BusinessInfoUpdate extends IntersectionType(BusinessInfoUpdateFields, BusinessInfoOptionalFields) {}

class CommonFields {
  @ApiPropertyOptional({ type: [String], example: ['USD'] })
  @Optional()
  @IsArray()
  @ArrayMaxSize(20)
  @Matches(CURRENCY_CODE, { each: true, message: 'each value in currencies must be 3 to 5 upper-case letters such as USD' })
  currencies?: string[];

  @ApiPropertyOptional({ format: 'email' })
  @Optional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({ example: '$alice@example.com' })
  @Optional()
  @Matches(UMA_ADDRESS, { message: umaMessage })
  @MaxLength(255)
  umaAddress?: string;
}

class CreateOnlyFields {
  @ApiPropertyOptional() @Optional() @Text() platformCustomerId?: string;
  @ApiPropertyOptional({ example: 'US' }) @Optional() @Matches(COUNTRY_CODE, { message: countryMessage('region') }) region?: string;
}

class IndividualFields {
  @ApiProperty({ enum: ['INDIVIDUAL'] }) @IsIn(['INDIVIDUAL']) customerType: 'INDIVIDUAL';
  @ApiPropertyOptional({ enum: kycStatuses }) @Optional() @IsIn(kycStatuses) kycStatus?: (typeof kycStatuses)[number];
  @ApiPropertyOptional() @Optional() @Text() fullName?: string;
  @ApiPropertyOptional({ format: 'date' }) @Optional() @CalendarDate('birthDate') birthDate?: string;
  @ApiPropertyOptional() @Optional() @Matches(COUNTRY_CODE, { message: countryMessage('nationality') }) nationality?: string;
  @ApiPropertyOptional({ type: Address }) @Optional() @ValidateNested() @Type(() => Address) address?: Address;
}

class BusinessFields {
  @ApiProperty({ enum: ['BUSINESS'] }) @IsIn(['BUSINESS']) customerType: 'BUSINESS';
  @ApiPropertyOptional({ enum: kycStatuses }) @Optional() @IsIn(kycStatuses) kybStatus?: (typeof kycStatuses)[number];
  @ApiPropertyOptional({ type: Address }) @Optional() @ValidateNested() @Type(() => Address) address?: Address;
}

class BusinessInfoCreateField {
  @ApiPropertyOptional({ type: BusinessInfo }) @Optional() @ValidateNested() @Type(() => BusinessInfo) businessInfo?: BusinessInfo;
}

class BusinessInfoUpdateField {
  @ApiPropertyOptional({ type: BusinessInfoUpdate })
  @Optional()
  @ValidateNested()
  @Type(() => BusinessInfoUpdate)
  businessInfo?: BusinessInfoUpdate;
}

export class IndividualCustomerCreateRequest extends IntersectionType(CommonFields, CreateOnlyFields, IndividualFields) {}
export class BusinessCustomerCreateRequest extends IntersectionType(
  CommonFields,
  CreateOnlyFields,
  BusinessFields,
  BusinessInfoCreateField,
) {}
export class IndividualCustomerUpdateRequest extends IntersectionType(CommonFields, IndividualFields) {}
export class BusinessCustomerUpdateRequest extends IntersectionType(CommonFields, BusinessFields, BusinessInfoUpdateField) {}

export type CustomerCreateRequest = IndividualCustomerCreateRequest | BusinessCustomerCreateRequest;
export type CustomerUpdateRequest = IndividualCustomerUpdateRequest | BusinessCustomerUpdateRequest;

class CustomerFilters {
  @ApiPropertyOptional() @Optional() @Text() platformCustomerId?: string;
  @ApiPropertyOptional({ enum: customerTypes }) @Optional() @IsIn(customerTypes) customerType?: (typeof customerTypes)[number];
  @ApiPropertyOptional() @Optional() @Matches(COUNTRY_CODE, { message: countryMessage('region') }) region?: string;
  @ApiPropertyOptional()
  @Optional()
  @Matches(CURRENCY_CODE, { message: 'currency must be 3 to 5 upper-case letters such as USD' })
  currency?: string;
  @ApiPropertyOptional() @Optional() @Matches(UMA_ADDRESS, { message: umaMessage }) umaAddress?: string;
  @ApiPropertyOptional({ enum: ['true', 'false'] })
  @Optional()
  @IsIn(['true', 'false'], { message: 'isIncludingDeleted must be true or false' })
  isIncludingDeleted?: 'true' | 'false';
}

export class ListCustomersQuery extends IntersectionType(CustomerFilters, DateRangeQuery, PageQuery) {}
