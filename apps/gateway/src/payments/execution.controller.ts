import { Body, Controller, HttpCode, Param, Post, UseGuards, Headers } from '@nestjs/common';
import { ApiBasicAuth, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsInt, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import {
  type ExecuteQuoteData,
  type QuoteWire,
  type RequestContext,
  type SandboxSendData,
  subjects,
  type TransactionWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { CURRENCY_CODE } from '../customers/customer.dto';
import { IdPipe, Optional } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ReferenceOperation } from '../http/openapi/operation';

// Quote execution: POST /quotes/{quoteId}/execute (an internal-account source) and the sandbox's
// simulated arrival of a REALTIME_FUNDING quote's funds, POST /sandbox/send. Idempotency-Key on
// either replays the first outcome (the global interceptor), and the payments service refuses a
// second execution of one quote with 409 whatever the key.

const quoteId = new IdPipe('Quote', 'QUOTE_NOT_FOUND', 'Quote');
const amountMessage = 'currencyAmount must be a whole number of minor units from 1 to 9000000000000000';

export class SandboxSendRequest {
  @ApiProperty({ example: 'Quote:019542f5-b3e7-1d02-0000-000000000001' })
  @IsString({ message: 'quoteId must be the id of a REALTIME_FUNDING quote' })
  @MaxLength(128, { message: 'quoteId must be the id of a REALTIME_FUNDING quote' })
  quoteId: string;

  @ApiProperty({ example: 'USD', description: 'Currency of the funds sent; must be the quote’s sending currency.' })
  @Matches(CURRENCY_CODE, { message: 'currencyCode must be a currency code in capitals, such as USD' })
  currencyCode: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Minor units; the quote’s totalSendingAmount when omitted.' })
  @Optional()
  @IsInt({ message: amountMessage })
  @Min(1, { message: amountMessage })
  @Max(9_000_000_000_000_000, { message: amountMessage })
  currencyAmount?: number;
}

@ApiBasicAuth()
@Controller()
export class QuoteExecutionController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('executeQuote', { signature: 'signedCall' })
  @Post('quotes/:quoteId/execute')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @ApiTags('Cross-Currency Transfers')
  execute(
    @Param('quoteId', quoteId) id: string,
    @Headers('grid-wallet-signature') walletSignature: string | undefined,
    @Ctx() context: RequestContext,
  ): Promise<QuoteWire> {
    // Grid-Wallet-Signature: the single signed call of an Embedded Wallet source (ignored for other sources).
    const data: ExecuteQuoteData = { quoteId: id, ...(typeof walletSignature === 'string' ? { walletSignature } : {}) };
    return this.call.request(subjects.payments.quote.execute, data, context);
  }

  @ReferenceOperation('sandboxSend')
  @Post('sandbox/send')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  @ApiTags('Sandbox')
  send(@Body() body: SandboxSendRequest, @Ctx() context: RequestContext): Promise<TransactionWire> {
    const data: SandboxSendData = {
      quoteId: body.quoteId,
      currencyCode: body.currencyCode,
      ...(body.currencyAmount !== undefined ? { currencyAmount: String(body.currencyAmount) } : {}),
    };
    return this.call.request(subjects.payments.sandbox.send, data, context);
  }
}
