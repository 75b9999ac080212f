import { Body, Controller, createParamDecorator, Delete, type ExecutionContext, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type CreateExternalAccountData,
  type ExternalAccountIdData,
  type ExternalAccountWire,
  type ListExternalAccountsData,
  type Page,
  type PlatformEnvironment,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { type AuthenticatedRequest, Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import {
  ExternalAccountCreateRequest,
  ListCustomerExternalAccountsQuery,
  ListPlatformExternalAccountsQuery,
  PlatformExternalAccountCreateRequest,
} from './external-account.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const externalAccountId = new IdPipe('ExternalAccount', 'REFERENCE_NOT_FOUND', 'External account');

/** The verified credential's environment: sandbox platforms get the simulated verification and activation. */
const Environment = createParamDecorator((_data: unknown, host: ExecutionContext): PlatformEnvironment => {
  const request = host.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.corridor) throw new Error('Environment used on a route without authentication.');
  return request.corridor.credential.environment;
});

@ApiTags('External Accounts')
@ApiBasicAuth()
@Controller('customers/external-accounts')
export class CustomerExternalAccountsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createCustomerExternalAccount')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(
    @Body() body: ExternalAccountCreateRequest,
    @Environment() environment: PlatformEnvironment,
    @Ctx() context: RequestContext,
  ): Promise<ExternalAccountWire> {
    const data: CreateExternalAccountData = { ...body, owner: body.customerId === undefined ? 'PLATFORM' : 'CUSTOMER', environment };
    return this.call.request(subjects.accounts.externalAccount.create, data, context);
  }

  @ReferenceOperation('listCustomerExternalAccounts')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListCustomerExternalAccountsQuery, @Ctx() context: RequestContext): Promise<Page<ExternalAccountWire>> {
    const data: ListExternalAccountsData = {
      owner: 'CUSTOMER',
      ...defined({ customerId: query.customerId, currency: query.currency }),
      ...pageOf(query),
    };
    return this.call.request(subjects.accounts.externalAccount.list, data, context);
  }

  @ReferenceOperation('getCustomerExternalAccountById')
  @Get(':externalAccountId')
  @RequiresPermission('VIEW')
  get(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<ExternalAccountWire> {
    return this.call.request(
      subjects.accounts.externalAccount.get,
      { owner: 'CUSTOMER', externalAccountId: id } satisfies ExternalAccountIdData,
      context,
    );
  }

  @ReferenceOperation('deleteCustomerExternalAccountById')
  @Delete(':externalAccountId')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async delete(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(
      subjects.accounts.externalAccount.delete,
      { owner: 'CUSTOMER', externalAccountId: id } satisfies ExternalAccountIdData,
      context,
    );
  }
}

@ApiTags('External Accounts')
@ApiBasicAuth()
@Controller('platform/external-accounts')
export class PlatformExternalAccountsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('createPlatformExternalAccount')
  @Post()
  @HttpCode(201)
  @RequiresPermission('MANAGE')
  create(
    @Body() body: PlatformExternalAccountCreateRequest,
    @Environment() environment: PlatformEnvironment,
    @Ctx() context: RequestContext,
  ): Promise<ExternalAccountWire> {
    const data: CreateExternalAccountData = { ...body, owner: 'PLATFORM', environment };
    return this.call.request(subjects.accounts.externalAccount.create, data, context);
  }

  @ReferenceOperation('listPlatformExternalAccounts')
  @Get()
  @RequiresPermission('VIEW')
  list(@Query() query: ListPlatformExternalAccountsQuery, @Ctx() context: RequestContext): Promise<Page<ExternalAccountWire>> {
    const data: ListExternalAccountsData = { owner: 'PLATFORM', ...defined({ currency: query.currency }), ...pageOf(query) };
    return this.call.request(subjects.accounts.externalAccount.list, data, context);
  }

  @ReferenceOperation('getPlatformExternalAccountById')
  @Get(':externalAccountId')
  @RequiresPermission('VIEW')
  get(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<ExternalAccountWire> {
    return this.call.request(
      subjects.accounts.externalAccount.get,
      { owner: 'PLATFORM', externalAccountId: id } satisfies ExternalAccountIdData,
      context,
    );
  }

  @ReferenceOperation('deletePlatformExternalAccountById')
  @Delete(':externalAccountId')
  @HttpCode(204)
  @RequiresPermission('MANAGE')
  async delete(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(
      subjects.accounts.externalAccount.delete,
      { owner: 'PLATFORM', externalAccountId: id } satisfies ExternalAccountIdData,
      context,
    );
  }
}
