import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsNotEmpty, IsObject, IsString, Length, Matches, MaxLength, ValidateNested } from 'class-validator';
import { AUTH_METHOD_TYPES, type AuthMethodType, CLIENT_PUBLIC_KEY_PATTERN } from '@corridor/contracts';
import { Optional } from '../http/validation';

// Bodies and queries of /auth/* (reference section (k)), validated here; the accounts service
// applies the rules. Bodies are oneOf by `type`, validated with DiscriminatedBodyPipe.

const ACCOUNT_ID = /^InternalAccount:[0-9a-fA-F-]{36}$/;
const accountIdMessage = 'accountId must be an InternalAccount id such as InternalAccount:019542f5-b3e7-1d02-0000-000000000002';
const keyMessage = 'clientPublicKey must be an uncompressed P-256 public key in hex: 04 followed by 128 hex digits';
const typeMessage = `type must be one of ${AUTH_METHOD_TYPES.join(', ')}`;

export class AccountIdQuery {
  @ApiProperty({ example: 'InternalAccount:019542f5-b3e7-1d02-0000-000000000002' })
  @IsString({ message: accountIdMessage })
  @Matches(ACCOUNT_ID, { message: accountIdMessage })
  accountId: string;
}

class CredentialBase {
  @ApiProperty({ enum: AUTH_METHOD_TYPES }) @IsIn(AUTH_METHOD_TYPES, { message: typeMessage }) type: AuthMethodType;
  @ApiProperty() @IsString({ message: accountIdMessage }) @Matches(ACCOUNT_ID, { message: accountIdMessage }) accountId: string;
}

export class EmailOtpCredentialCreateRequest extends CredentialBase {}

export class OauthCredentialCreateRequest extends CredentialBase {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(8192) oidcToken: string;
}

class PasskeyAttestation {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024) credentialId: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(16384) clientDataJson: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(16384) attestationObject: string;
  @ApiPropertyOptional() @Optional() @IsArray() @IsString({ each: true }) transports?: string[];
}

export class PasskeyCredentialCreateRequest extends CredentialBase {
  @ApiProperty() @IsString() @Length(1, 100) nickname: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024) challenge: string;
  @ApiProperty({ type: PasskeyAttestation }) @IsObject() @ValidateNested() @Type(() => PasskeyAttestation) attestation: PasskeyAttestation;
}

export const credentialCreateVariants = {
  EMAIL_OTP: EmailOtpCredentialCreateRequest,
  OAUTH: OauthCredentialCreateRequest,
  PASSKEY: PasskeyCredentialCreateRequest,
};

export class AuthCredentialChallengeRequest {
  @ApiPropertyOptional()
  @Optional()
  @IsString({ message: keyMessage })
  @Matches(CLIENT_PUBLIC_KEY_PATTERN, { message: keyMessage })
  clientPublicKey?: string;
}

class VerifyBase {
  @ApiProperty({ enum: AUTH_METHOD_TYPES }) @IsIn(AUTH_METHOD_TYPES, { message: typeMessage }) type: AuthMethodType;
}

export class EmailOtpVerifyRequest extends VerifyBase {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(4096) encryptedOtpBundle: string;
}

export class OauthVerifyRequest extends VerifyBase {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(8192) oidcToken: string;
  @ApiProperty() @IsString({ message: keyMessage }) @Matches(CLIENT_PUBLIC_KEY_PATTERN, { message: keyMessage }) clientPublicKey: string;
}

class PasskeyAssertion {
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(1024) credentialId: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(16384) clientDataJson: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(16384) authenticatorData: string;
  @ApiProperty() @IsString() @IsNotEmpty() @MaxLength(4096) signature: string;
  @ApiPropertyOptional() @Optional() @IsString() @MaxLength(1024) userHandle?: string;
}

export class PasskeyVerifyRequest extends VerifyBase {
  @ApiProperty({ type: PasskeyAssertion }) @IsObject() @ValidateNested() @Type(() => PasskeyAssertion) assertion: PasskeyAssertion;
}

export const credentialVerifyVariants = { EMAIL_OTP: EmailOtpVerifyRequest, OAUTH: OauthVerifyRequest, PASSKEY: PasskeyVerifyRequest };

export class AuthSessionRefreshRequest {
  @ApiProperty() @IsString({ message: keyMessage }) @Matches(CLIENT_PUBLIC_KEY_PATTERN, { message: keyMessage }) clientPublicKey: string;
}

export class InternalAccountExportRequest {
  @ApiProperty() @IsString({ message: keyMessage }) @Matches(CLIENT_PUBLIC_KEY_PATTERN, { message: keyMessage }) clientPublicKey: string;
}
