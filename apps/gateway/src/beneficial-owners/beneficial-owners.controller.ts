import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type BeneficialOwnerWire,
  type CreateBeneficialOwnerData,
  type Page,
  type RequestContext,
  subjects,
  type UpdateBeneficialOwnerData,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { BeneficialOwnerCreateRequest, BeneficialOwnerUpdateRequest, ListBeneficialOwnersQuery } from './beneficial-owner.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const beneficialOwnerId = new IdPipe('BeneficialOwner', 'REFERENCE_NOT_FOUND', 'Beneficial owner');

@ApiTags('KYC/KYB Verifications')
@ApiBasicAuth()
@Controller('beneficial-owners')
export class BeneficialOwnersController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createBeneficialOwner')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(@Body() body: BeneficialOwnerCreateRequest, @Ctx() context: RequestContext): Promise<BeneficialOwnerWire> {
    return this.call.request(subjects.customers.beneficialOwner.create, body satisfies CreateBeneficialOwnerData, context);
  }

  @ReferenceOperation('listBeneficialOwners')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListBeneficialOwnersQuery, @Ctx() context: RequestContext): Promise<Page<BeneficialOwnerWire>> {
    return this.call.request(subjects.customers.beneficialOwner.list, { customerId: query.customerId, ...pageOf(query) }, context);
  }

  @ReferenceOperation('getBeneficialOwner')
  @Get(':beneficialOwnerId')
  @RequiresPermission('VIEW')
  get(@Param('beneficialOwnerId', beneficialOwnerId) id: string, @Ctx() context: RequestContext): Promise<BeneficialOwnerWire> {
    return this.call.request(subjects.customers.beneficialOwner.get, { beneficialOwnerId: id }, context);
  }

  @ReferenceOperation('updateBeneficialOwner')
  @Patch(':beneficialOwnerId')
  @RequiresPermission('MANAGE')
  update(
    @Param('beneficialOwnerId', beneficialOwnerId) id: string,
    @Body() body: BeneficialOwnerUpdateRequest,
    @Ctx() context: RequestContext,
  ): Promise<BeneficialOwnerWire> {
    const data: UpdateBeneficialOwnerData = { beneficialOwnerId: id, patch: body };
    return this.call.request(subjects.customers.beneficialOwner.update, data, context);
  }
}
