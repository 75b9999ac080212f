import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type ListVerificationsData,
  type Page,
  type RequestContext,
  subjects,
  type SubmitVerificationData,
  type VerificationWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ListVerificationsQuery, VerificationRequest } from './verification.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const verificationId = new IdPipe('Verification', 'REFERENCE_NOT_FOUND', 'Verification');

@ApiTags('KYC/KYB Verifications')
@ApiBasicAuth()
@Controller('verifications')
export class VerificationsController {
  constructor(private readonly call: ServiceCall) {}

  /** 200, not 201, as the reference has it: the reply says whether the customer could be submitted. */
  @ReferenceOperation('createVerification')
  @Post()
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  submit(@Body() body: VerificationRequest, @Ctx() context: RequestContext): Promise<VerificationWire> {
    return this.call.request(
      subjects.customers.verification.submit,
      { customerId: body.customerId } satisfies SubmitVerificationData,
      context,
    );
  }

  @ReferenceOperation('listVerifications')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListVerificationsQuery, @Ctx() context: RequestContext): Promise<Page<VerificationWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    const data: ListVerificationsData = { ...defined(filters), ...pageOf(query) };
    return this.call.request(subjects.customers.verification.list, data, context);
  }

  @ReferenceOperation('getVerification')
  @Get(':verificationId')
  @RequiresPermission('VIEW')
  get(@Param('verificationId', verificationId) id: string, @Ctx() context: RequestContext): Promise<VerificationWire> {
    return this.call.request(subjects.customers.verification.get, { verificationId: id }, context);
  }
}
