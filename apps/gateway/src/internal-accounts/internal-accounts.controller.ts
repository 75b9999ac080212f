import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type FundInternalAccountData,
  type InternalAccountWire,
  type ListInternalAccountsData,
  type ListPlatformInternalAccountsData,
  type Page,
  type RequestContext,
  type SignedReply,
  subjects,
} from '@corridor/contracts';
import { InternalAccountExportRequest } from '../auth-credentials/auth-credentials.dto';
import { answer, walletHeaders } from '../auth-credentials/signed-reply';
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
import { ReferenceOperation } from '../http/openapi/operation';

// The reference has no dedicated 404 code for internal accounts; REFERENCE_NOT_FOUND is its generic one.
const internalAccountId = new IdPipe('InternalAccount', 'REFERENCE_NOT_FOUND', 'Internal account');

@ApiTags('Internal Accounts')
@ApiBasicAuth()
@Controller()
export class InternalAccountsController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('listCustomerInternalAccounts')
  @Get('customers/internal-accounts')
  @RequiresPermission('VIEW')
  listCustomerAccounts(
    @Query() query: ListCustomerInternalAccountsQuery,
    @Ctx() context: RequestContext,
  ): Promise<Page<InternalAccountWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(
      subjects.accounts.internalAccount.list,
      { ...defined(filters), ...pageOf(query) } satisfies ListInternalAccountsData,
      context,
    );
  }

  @ReferenceOperation('listPlatformInternalAccounts')
  @Get('platform/internal-accounts')
  @RequiresPermission('VIEW')
  listPlatformAccounts(
    @Query() query: ListPlatformInternalAccountsQuery,
    @Ctx() context: RequestContext,
  ): Promise<{ data: InternalAccountWire[] }> {
    return this.call.request(
      subjects.accounts.internalAccount.listPlatform,
      defined({ ...query }) satisfies ListPlatformInternalAccountsData,
      context,
    );
  }

  @ReferenceOperation('updateInternalAccount', { signature: 'signedRetry' })
  @Patch('internal-accounts/:id')
  @RequiresPermission('MANAGE')
  async update(
    @Param('id', internalAccountId) id: string,
    @Body() body: InternalAccountUpdateRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    // privateEnabled changes take the Embedded Wallet signed retry (202, then a stamped retry).
    const data = { accountId: id, body: defined({ ...body }), ...walletHeaders(request) };
    return answer(
      reply,
      await this.call.request<SignedReply<InternalAccountWire>>(subjects.accounts.embeddedWallet.updateAccount, data, context),
    );
  }

  @ReferenceOperation('exportInternalAccount', { signature: 'signedRetry' })
  @Post('internal-accounts/:id/export')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  async export(
    @Param('id', internalAccountId) id: string,
    @Body() body: InternalAccountExportRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const data = { accountId: id, body: { ...body }, ...walletHeaders(request) };
    return answer(reply, await this.call.request<SignedReply<unknown>>(subjects.accounts.embeddedWallet.exportAccount, data, context));
  }

  @ReferenceOperation('sandboxFundInternalAccount')
  @Post('sandbox/internal-accounts/:accountId/fund')
  @HttpCode(200)
  @RequiresPermission('TRANSACT')
  @UseGuards(SandboxOnlyGuard)
  @ApiTags('Sandbox')
  fund(
    @Param('accountId', internalAccountId) id: string,
    @Body() body: SandboxFundRequest,
    @Ctx() context: RequestContext,
  ): Promise<InternalAccountWire> {
    return this.call.request(
      subjects.accounts.internalAccount.fund,
      { accountId: id, amount: body.amount } satisfies FundInternalAccountData,
      context,
    );
  }
}
