import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsObject, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { TRANSFER_AMOUNT_MAX } from '@corridor/contracts';
import { Optional } from '../http/validation';

// Bodies of POST /transfer-out, POST /transfer-in (the reference's TransferOutRequest and
// TransferInRequest) and POST /transactions/{id}/confirm.

const ID_MAX = 128;
const amountMessage = `amount must be a whole number of minor units from 1 to ${TRANSFER_AMOUNT_MAX}`;
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

class AccountReference {
  @ApiProperty({ example: 'InternalAccount:a12dcbd6-dced-4ec4-b756-3c3a9ea3d123' })
  @IsString({ message: 'accountId must be an account id' })
  @MinLength(1)
  @MaxLength(ID_MAX)
  accountId: string;
}

class ExternalAccountDestination extends AccountReference {
  @ApiPropertyOptional({ enum: paymentRails })
  @Optional()
  @IsIn(paymentRails, { message: `paymentRail must be one of ${paymentRails.join(', ')}` })
  paymentRail?: string;
}

const amountProperty = (description: string): PropertyDecorator => {
  const decorators = [
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: TRANSFER_AMOUNT_MAX,
      example: 12550,
      description: `Minor units of the accounts’ currency. ${description}`,
    }),
    Optional(),
    IsInt({ message: amountMessage }),
    Min(1, { message: amountMessage }),
    Max(TRANSFER_AMOUNT_MAX, { message: amountMessage }),
  ];
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
};

export class TransferOutRequest {
  @ApiProperty({ type: AccountReference, description: 'The internal account the money leaves.' })
  @IsObject({ message: 'source must be an object with an accountId' })
  @ValidateNested()
  @Type(() => AccountReference)
  source: AccountReference;

  @ApiProperty({ type: ExternalAccountDestination, description: 'The external account of the same owner and currency that receives it.' })
  @IsObject({ message: 'destination must be an object with an accountId' })
  @ValidateNested()
  @Type(() => ExternalAccountDestination)
  destination: ExternalAccountDestination;

  @amountProperty('Optional: left out, the whole available balance of the source internal account (a 400 if it has none).')
  amount?: number;
}

export class TransferInRequest {
  @ApiProperty({ type: AccountReference, description: 'An external account that can be pulled from (ACH).' })
  @IsObject({ message: 'source must be an object with an accountId' })
  @ValidateNested()
  @Type(() => AccountReference)
  source: AccountReference;

  @ApiProperty({ type: AccountReference, description: 'The internal account of the same owner and currency that receives it.' })
  @IsObject({ message: 'destination must be an object with an accountId' })
  @ValidateNested()
  @Type(() => AccountReference)
  destination: AccountReference;

  @amountProperty(
    'Optional in the wire format, yet required here: Corridor cannot see the external account’s balance, so a transfer-in without it is ' +
      'a 400.',
  )
  amount?: number;
}

export class ConfirmReceiptDeliveryRequest {
  @ApiPropertyOptional({ format: 'date-time', description: 'Defaults to the current server time.' })
  @Optional()
  @IsISO8601({ strict: true }, { message: 'receiptDeliveryConfirmedAt must be an RFC 3339 date-time such as 2025-10-13T12:00:00Z' })
  receiptDeliveryConfirmedAt?: string;
}
