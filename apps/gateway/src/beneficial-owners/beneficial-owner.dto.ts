import { ApiProperty, ApiPropertyOptional, IntersectionType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsEmail,
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
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import { beneficialOwnerRoles, identificationTypes, isIdOf } from '@corridor/contracts';
import { Address, COUNTRY_CODE } from '../customers/customer.dto';
import { PageQuery } from '../http/list-query';
import { Optional } from '../http/validation';

// Request bodies and the list query of /beneficial-owners (reference BeneficialOwnerCreateRequest,
// BeneficialOwnerUpdateRequest, BeneficialOwnerPersonalInfo[Update]).

const E164 = /^\+[1-9]\d{1,14}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const apply =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((decorator) => decorator(target, key));
const Text = (max = 255) => apply(IsString(), MinLength(1), MaxLength(max));
const Country = (name: string) => Matches(COUNTRY_CODE, { message: `${name} must be an ISO 3166-1 alpha-2 country code such as US` });
const dateMessage = 'personalInfo.birthDate must be a calendar date in the form YYYY-MM-DD';
const percentMessage = 'ownershipPercentage must be a whole number from 0 to 100';
const rolesMessage = `each value in roles must be one of ${beneficialOwnerRoles.join(', ')}`;

/** A `<Type>:<uuid>` id in a body; anything else cannot name a resource. */
export const IsIdOf = (type: string, field: string): PropertyDecorator =>
  ValidateBy({
    name: 'isIdOf',
    validator: {
      validate: (value) => isIdOf(type, value),
      defaultMessage: () => `${field} must be a ${type} id such as ${type}:019542f5-b3e7-7d02-8000-000000000001`,
    },
  });

export class BeneficialOwnerPersonalInfo {
  @ApiProperty() @Text() firstName: string;
  @ApiPropertyOptional() @Optional() @Text() middleName?: string;
  @ApiProperty() @Text() lastName: string;
  @ApiProperty({ format: 'date' })
  @Matches(DATE, { message: dateMessage })
  @IsISO8601({ strict: true }, { message: dateMessage })
  birthDate: string;
  @ApiProperty({ example: 'US' }) @Country('nationality') nationality: string;
  @ApiPropertyOptional({ format: 'email' })
  @Optional()
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email?: string;
  @ApiPropertyOptional({ example: '+14155550192' })
  @Optional()
  @Matches(E164, { message: 'phoneNumber must be in E.164 format, a + and up to 15 digits such as +14155550192' })
  phoneNumber?: string;
  // ValidateNested alone lets a missing object through (class-validator skips undefined), so every
  // required nested object also carries IsObject: a missing one is a 400 naming it, not a service's TypeError.
  @ApiProperty({ type: Address })
  @IsObject({ message: 'personalInfo.address must be an object with line1, postalCode and country' })
  @ValidateNested()
  @Type(() => Address)
  address: Address;
  @ApiProperty({ enum: identificationTypes })
  @IsIn(identificationTypes, { message: `idType must be one of ${identificationTypes.join(', ')}` })
  idType: (typeof identificationTypes)[number];
  @ApiProperty() @Text(64) identifier: string;
  @ApiPropertyOptional({ example: 'US' }) @Optional() @Country('countryOfIssuance') countryOfIssuance?: string;
}

export class BeneficialOwnerPersonalInfoUpdate extends PartialType(BeneficialOwnerPersonalInfo) {}

class OwnerFields {
  @ApiProperty({ enum: beneficialOwnerRoles, isArray: true })
  @IsArray()
  @ArrayMinSize(1, { message: 'roles must name at least one role' })
  @ArrayMaxSize(beneficialOwnerRoles.length)
  @IsIn(beneficialOwnerRoles, { each: true, message: rolesMessage })
  roles: (typeof beneficialOwnerRoles)[number][];

  @ApiProperty({ minimum: 0, maximum: 100 })
  @IsInt({ message: percentMessage })
  @Min(0, { message: percentMessage })
  @Max(100, { message: percentMessage })
  ownershipPercentage: number;
}

export class BeneficialOwnerCreateRequest extends OwnerFields {
  @ApiProperty({ example: 'Customer:019542f5-b3e7-1d02-0000-000000000001' }) @IsIdOf('Customer', 'customerId') customerId: string;
  @ApiProperty({ type: BeneficialOwnerPersonalInfo })
  @IsObject({ message: 'personalInfo must be an object with firstName, lastName, birthDate, nationality, address, idType and identifier' })
  @ValidateNested()
  @Type(() => BeneficialOwnerPersonalInfo)
  personalInfo: BeneficialOwnerPersonalInfo;
}

export class BeneficialOwnerUpdateRequest extends PartialType(OwnerFields) {
  @ApiPropertyOptional({ type: BeneficialOwnerPersonalInfoUpdate })
  @Optional()
  @ValidateNested()
  @Type(() => BeneficialOwnerPersonalInfoUpdate)
  personalInfo?: BeneficialOwnerPersonalInfoUpdate;
}

class OwnerFilter {
  @ApiProperty({ description: 'The business customer whose owners to list.' }) @IsIdOf('Customer', 'customerId') customerId: string;
}

export class ListBeneficialOwnersQuery extends IntersectionType(OwnerFilter, PageQuery) {}
