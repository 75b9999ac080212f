import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type FundInternalAccountData,
  type InternalAccountWire,
  type ListInternalAccountsData,
  type ListPlatformInternalAccountsData,
  type Page,
  type RequestContext,
  subjects,
  type UpdateInternalAccountData,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import {
  InternalAccountUpdateRequest,
  ListCustomerInternalAccountsQuery,
  ListPlatformInternalAccountsQuery,
  SandboxFundRequest,
} from './internal-account.dto';

// The reference has no dedicated 404 code for internal accounts; REFERENCE_NOT_FOUND is its generic one.
const internalAccountId = new IdPipe('InternalAccount', 'REFERENCE_NOT_FOUND', 'Internal account');

@ApiTags('Internal Accounts')
@ApiBasicAuth()
@Controller()
export class InternalAccountsController {
  constructor(private readonly call: ServiceCall) {}

  @Get('customers/internal-accounts')
  @RequiresPermission('VIEW')
  listCustomerAccounts(@Query() query: ListCustomerInternalAccountsQuery, @Ctx() context: RequestContext): Promise<Page<InternalAccountWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.accounts.internalAccount.list, { ...defined(filters), ...pageOf(query) } satisfies ListInternalAccountsData, context);
  }

  @Get('platform/internal-accounts')
  @RequiresPermission('VIEW')
  listPlatformAccounts(@Query() query: ListPlatformInternalAccountsQuery, @Ctx() context: RequestContext): Promise<{ data: InternalAccountWire[] }> {
    return this.call.request(subjects.accounts.internalAccount.listPlatform, defined({ ...query }) satisfies ListPlatformInternalAccountsData, context);
  }

  @Patch('internal-accounts/:id')
  @RequiresPermission('MANAGE')
  update(@Param('id', internalAccountId) id: string, @Body() body: InternalAccountUpdateRequest, @Ctx() context: RequestContext): Promise<InternalAccountWire> {
    return this.call.request(subjects.accounts.internalAccount.update, { accountId: id, ...defined({ ...body }) } satisfies UpdateInternalAccountData, context);
  }

  @Post('sandbox/internal-accounts/:accountId/fund')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  @ApiTags('Sandbox')
  fund(@Param('accountId', internalAccountId) id: string, @Body() body: SandboxFundRequest, @Ctx() context: RequestContext): Promise<InternalAccountWire> {
    return this.call.request(subjects.accounts.internalAccount.fund, { accountId: id, amount: body.amount } satisfies FundInternalAccountData, context);
  }
}
