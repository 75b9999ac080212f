import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AgentActionWire,
  type AgentExecuteQuoteData,
  type AgentTransferData,
  type AgentWire,
  type CreateQuoteData,
  type ExternalAccountWire,
  type InternalAccountWire,
  type Page,
  type QuoteIdData,
  type QuoteWire,
  type RequestContext,
  type SignedReply,
  subjects,
  type TransactionWire,
} from '@corridor/contracts';
import { answer, walletHeaders } from '../auth-credentials/signed-reply';
import { PublicRoute } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { ExternalAccountCreateRequest } from '../external-accounts/external-account.dto';
import { AsOfQuery, defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { QuoteRequest, QuoteRequestPipe } from '../payments/payments.dto';
import { ServiceCall } from '../service-call';
import { AgentAuthGuard } from './agent-auth.guard';
import {
  AgentExternalAccountsQuery,
  AgentInternalAccountsQuery,
  AgentTransactionsQuery,
  AgentTransferRequest,
  ListOwnActionsQuery,
} from './agents.dto';
import { ReferenceOperation } from '../http/openapi/operation';

const quoteId = new IdPipe('Quote', 'QUOTE_NOT_FOUND', 'Quote');
const transactionId = new IdPipe('Transaction', 'TRANSACTION_NOT_FOUND', 'Transaction');
const actionId = new IdPipe('AgentAction', 'REFERENCE_NOT_FOUND', 'Agent action');
const externalAccountId = new IdPipe('ExternalAccount', 'REFERENCE_NOT_FOUND', 'External account');
const quoteBody = new QuoteRequestPipe();
/** Routes that wait for payments to start the money moving (agents' action executor allows it 20 s). */
export const AGENT_ACTION_TIMEOUT_MS = 25_000;

const transferOf = (body: AgentTransferRequest): AgentTransferData => ({
  source: { accountId: body.source.accountId },
  destination: {
    accountId: body.destination.accountId,
    ...(body.destination.paymentRail !== undefined ? { paymentRail: body.destination.paymentRail } : {}),
  },
  amount: body.amount,
});

/**
 * The agent's own API (Bearer token from a redeemed device code). Marked public for the platform
 * AuthGuard; AgentAuthGuard authenticates every route here, and the agents service applies the
 * agent's customer, permissions and policy.
 */
@ApiTags('Agent Operations')
@ApiBearerAuth()
@PublicRoute()
@UseGuards(AgentAuthGuard)
@Controller('agents/me')
export class AgentMeController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('getAgentMe')
  @Get()
  me(@Ctx() context: RequestContext): Promise<AgentWire> {
    return this.call.request(subjects.agents.me.get, {}, context);
  }

  @ReferenceOperation('agentListTransactions')
  @Get('transactions')
  transactions(@Query() query: AgentTransactionsQuery, @Ctx() context: RequestContext): Promise<Page<TransactionWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.agents.me.listTransactions, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ReferenceOperation('agentGetTransaction')
  @Get('transactions/:transactionId')
  transaction(@Param('transactionId', transactionId) id: string, @Ctx() context: RequestContext): Promise<TransactionWire> {
    return this.call.request(subjects.agents.me.getTransaction, { transactionId: id }, context);
  }

  @ReferenceOperation('agentCreateQuote')
  @Post('quotes')
  @HttpCode(201)
  @ApiBody({ type: QuoteRequest })
  createQuote(@Body(quoteBody) body: CreateQuoteData, @Ctx() context: RequestContext): Promise<QuoteWire> {
    return this.call.request(subjects.agents.me.createQuote, body, context);
  }

  @ReferenceOperation('agentGetQuote')
  @Get('quotes/:quoteId')
  quote(@Param('quoteId', quoteId) id: string, @Query() query: AsOfQuery, @Ctx() context: RequestContext): Promise<QuoteWire> {
    return this.call.request(subjects.agents.me.getQuote, { quoteId: id, ...defined(query) } satisfies QuoteIdData, context);
  }

  @ReferenceOperation('agentExecuteQuote', { signature: 'signedCall' })
  @Post('quotes/:quoteId/execute')
  @HttpCode(200)
  execute(
    @Param('quoteId', quoteId) id: string,
    @Headers('grid-wallet-signature') walletSignature: string | undefined,
    @Ctx() context: RequestContext,
  ): Promise<AgentActionWire> {
    // Grid-Wallet-Signature: the customer's stamp for a quote from an Embedded Wallet (ignored for other sources).
    const data: AgentExecuteQuoteData = { quoteId: id, ...(typeof walletSignature === 'string' ? { walletSignature } : {}) };
    return this.call.request(subjects.agents.me.executeQuote, data, context, AGENT_ACTION_TIMEOUT_MS);
  }

  @ReferenceOperation('agentListActions')
  @Get('actions')
  actions(@Query() query: ListOwnActionsQuery, @Ctx() context: RequestContext): Promise<Page<AgentActionWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.agents.me.listActions, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ReferenceOperation('agentGetAction')
  @Get('actions/:actionId')
  action(@Param('actionId', actionId) id: string, @Ctx() context: RequestContext): Promise<AgentActionWire> {
    return this.call.request(subjects.agents.me.getAction, { actionId: id }, context);
  }

  @ReferenceOperation('agentCreateTransferIn')
  @Post('transfer-in')
  @HttpCode(201)
  transferIn(@Body() body: AgentTransferRequest, @Ctx() context: RequestContext): Promise<AgentActionWire> {
    return this.call.request(subjects.agents.me.transferIn, transferOf(body), context, AGENT_ACTION_TIMEOUT_MS);
  }

  @ReferenceOperation('agentCreateTransferOut', { signature: 'signedRetry' })
  @Post('transfer-out')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Transfer out of one of the agent’s customer’s internal accounts',
    description:
      'An EMBEDDED_WALLET source takes the wallet’s signed retry, as POST /transfer-out does (decision 0020): ' +
      '202 with {payloadToSign, requestId, expiresAt}, nothing reserved or recorded; then the same body with the customer’s ' +
      'Grid-Wallet-Signature over payloadToSign and Request-Id submits the action.',
  })
  async transferOut(
    @Body() body: AgentTransferRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Ctx() context: RequestContext,
  ): Promise<unknown> {
    const data: AgentTransferData = { ...transferOf(body), ...walletHeaders(request) };
    return answer(
      reply,
      await this.call.request<SignedReply<AgentActionWire>>(subjects.agents.me.transferOut, data, context, AGENT_ACTION_TIMEOUT_MS),
    );
  }

  @ReferenceOperation('agentListInternalAccounts')
  @Get('internal-accounts')
  internalAccounts(@Query() query: AgentInternalAccountsQuery, @Ctx() context: RequestContext): Promise<Page<InternalAccountWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.agents.me.listInternalAccounts, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ReferenceOperation('agentListExternalAccounts')
  @Get('external-accounts')
  externalAccounts(@Query() query: AgentExternalAccountsQuery, @Ctx() context: RequestContext): Promise<Page<ExternalAccountWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.agents.me.listExternalAccounts, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ReferenceOperation('agentCreateExternalAccount')
  @Post('external-accounts')
  @HttpCode(201)
  createExternalAccount(@Body() body: ExternalAccountCreateRequest, @Ctx() context: RequestContext): Promise<ExternalAccountWire> {
    return this.call.request(subjects.agents.me.createExternalAccount, defined({ ...body }), context);
  }

  @ReferenceOperation('agentGetExternalAccount')
  @Get('external-accounts/:externalAccountId')
  externalAccount(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<ExternalAccountWire> {
    return this.call.request(subjects.agents.me.getExternalAccount, { externalAccountId: id }, context);
  }

  @ReferenceOperation('agentDeleteExternalAccount')
  @Delete('external-accounts/:externalAccountId')
  @HttpCode(204)
  async deleteExternalAccount(@Param('externalAccountId', externalAccountId) id: string, @Ctx() context: RequestContext): Promise<void> {
    await this.call.request(subjects.agents.me.deleteExternalAccount, { externalAccountId: id }, context);
  }
}
