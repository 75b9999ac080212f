import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type CreateExternalAccountData,
  type CreateQuoteData,
  DomainError,
  type ExternalAccountWire,
  type InternalAccountWire,
  invalidInput,
  isIdOf,
  type ListExternalAccountsData,
  type ListInternalAccountsData,
  type ListTransactionsData,
  type Page,
  type QuoteIdData,
  type QuoteWire,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type TransactionWire,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { AgentParties } from '../parties';
import { ActingAgent } from './acting-agent';
import type { AgentView } from './agent';
import { agentQuoteDecider, AgentQuoteEntity, agentQuoteStreamId, recordAgentQuote } from './agent-quote';

const transactionNotFound = (id: unknown) =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${String(id).slice(0, 80)} was not found.`, {
    transactionId: String(id).slice(0, 80),
  });
const quoteNotFound = (id: unknown) =>
  new DomainError('QUOTE_NOT_FOUND', 'not_found', `Quote ${String(id).slice(0, 80)} was not found among the quotes this agent created.`, {
    quoteId: String(id).slice(0, 80),
  });
const notOwnAccount = (field: string, accountId: unknown) =>
  invalidInput(`${field} ${String(accountId).slice(0, 80)} is not an account of this agent's customer.`, { field });
const externalAccountNotFound = (id: unknown) =>
  new DomainError('REFERENCE_NOT_FOUND', 'not_found', `External account ${String(id).slice(0, 80)} was not found.`, {
    externalAccountId: String(id).slice(0, 80),
  });

/**
 * The agent's reads and its non-money routes (quotes, transactions, internal and external
 * accounts), answered by the services that own them with the agent's customer filled in: whatever
 * belongs to another customer is a 404, and no route lets the agent name another customer.
 */
@Controller()
export class AgentResourcesController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: AgentParties,
    private readonly acting: ActingAgent,
  ) {}

  /**
   * A quote from one of the customer's internal accounts. It executes only through
   * POST /agents/me/quotes/{id}/execute, where the policy applies, so immediatelyExecute is refused.
   */
  @MessagePattern(subjects.agents.me.createQuote)
  async createQuote(@Payload() request: ServiceRequest<CreateQuoteData>): Promise<QuoteWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'createQuote');
    if (data.immediatelyExecute === true)
      throw invalidInput(
        'immediatelyExecute is not available to agents: execute the quote with POST /agents/me/quotes/{quoteId}/execute, where the ' +
          'agent policy applies.',
        { field: 'immediatelyExecute' },
      );
    if (data.source?.sourceType !== 'ACCOUNT')
      throw invalidInput("source.sourceType must be ACCOUNT: an agent pays only from its customer's internal accounts.", {
        field: 'source.sourceType',
      });
    // agentCreateQuote declares no 404 (decision 0016), and the platform's POST /quotes answers an
    // account it cannot use with a 400 naming the field: so here, unknown or another customer's alike.
    const source = await this.parties.internalAccount(context, data.source.accountId);
    if (!source || source.customerId !== agent.customerId) throw notOwnAccount('source.accountId', data.source.accountId);
    if (data.destination?.destinationType === 'ACCOUNT') await this.requireOwnDestination(context, agent, data.destination.accountId);
    const quote = await this.parties.request<QuoteWire>(
      subjects.payments.quote.create,
      { ...data, source: { sourceType: 'ACCOUNT', accountId: source.id, customerId: agent.customerId } } satisfies CreateQuoteData,
      context,
    );
    const record = { quoteId: quote.id, agentId: agent.id, platformId: context.platformId };
    await this.eventSourcing.handle(agentQuoteStreamId(quote.id), agentQuoteDecider, (state) => recordAgentQuote(record, state), context, {
      assumeNew: true,
    });
    return quote;
  }

  @MessagePattern(subjects.agents.me.getQuote)
  async getQuote(@Payload() request: ServiceRequest<QuoteIdData>): Promise<QuoteWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'getQuote');
    const own = isIdOf('Quote', data.quoteId)
      ? await this.eventSourcing.em.findOne(AgentQuoteEntity, { quoteId: data.quoteId, agentId: agent.id, platformId: context.platformId })
      : null;
    if (!own) throw quoteNotFound(data.quoteId);
    return this.parties.quote(context, data.quoteId, data.asOf);
  }

  @MessagePattern(subjects.agents.me.listTransactions)
  async listTransactions(@Payload() request: ServiceRequest<ListTransactionsData>): Promise<Page<TransactionWire>> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'listTransactions');
    const { platformCustomerId: _ignored, ...filters } = data;
    return this.parties.request(
      subjects.payments.transaction.list,
      { ...filters, customerId: agent.customerId } satisfies ListTransactionsData,
      context,
    );
  }

  @MessagePattern(subjects.agents.me.getTransaction)
  async getTransaction(@Payload() request: ServiceRequest<{ transactionId: string }>): Promise<TransactionWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'getTransaction');
    if (!isIdOf('Transaction', data.transactionId)) throw transactionNotFound(data.transactionId);
    const transaction = await this.parties.request<TransactionWire>(
      subjects.payments.transaction.get,
      { transactionId: data.transactionId },
      context,
    );
    if (transaction.customerId !== agent.customerId) throw transactionNotFound(data.transactionId);
    return transaction;
  }

  @MessagePattern(subjects.agents.me.listInternalAccounts)
  async listInternalAccounts(
    @Payload() request: ServiceRequest<Omit<ListInternalAccountsData, 'customerId'>>,
  ): Promise<Page<InternalAccountWire>> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'listInternalAccounts');
    return this.parties.request(
      subjects.accounts.internalAccount.list,
      { ...data, customerId: agent.customerId } satisfies ListInternalAccountsData,
      context,
    );
  }

  @MessagePattern(subjects.agents.me.listExternalAccounts)
  async listExternalAccounts(
    @Payload() request: ServiceRequest<{ currency?: string; limit: number; cursor?: string }>,
  ): Promise<Page<ExternalAccountWire>> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'listExternalAccounts');
    return this.parties.request(
      subjects.accounts.externalAccount.list,
      { owner: 'CUSTOMER', customerId: agent.customerId, ...data } satisfies ListExternalAccountsData,
      context,
    );
  }

  /** customerId is the agent's customer, whatever the body says (the reference infers it). */
  @MessagePattern(subjects.agents.me.createExternalAccount)
  async createExternalAccount(
    @Payload() request: ServiceRequest<Omit<CreateExternalAccountData, 'owner' | 'environment'>>,
  ): Promise<ExternalAccountWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'createExternalAccount');
    if (data.customerId !== undefined && data.customerId !== agent.customerId)
      throw invalidInput("customerId must be the agent's own customer, or left out.", { field: 'customerId' });
    return this.parties.request(
      subjects.accounts.externalAccount.create,
      { ...data, owner: 'CUSTOMER', customerId: agent.customerId, environment: agent.environment } satisfies CreateExternalAccountData,
      context,
    );
  }

  @MessagePattern(subjects.agents.me.getExternalAccount)
  async getExternalAccount(@Payload() request: ServiceRequest<{ externalAccountId: string }>): Promise<ExternalAccountWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'getExternalAccount');
    return this.ownExternalAccount(context, agent, data.externalAccountId);
  }

  @MessagePattern(subjects.agents.me.deleteExternalAccount)
  async deleteExternalAccount(@Payload() request: ServiceRequest<{ externalAccountId: string }>): Promise<{ deleted: true }> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'deleteExternalAccount');
    await this.ownExternalAccount(context, agent, data.externalAccountId);
    await this.parties.request(
      subjects.accounts.externalAccount.delete,
      { owner: 'CUSTOMER', externalAccountId: data.externalAccountId },
      context,
    );
    return { deleted: true };
  }

  private async ownExternalAccount(context: RequestContext, agent: AgentView, externalAccountId: unknown): Promise<ExternalAccountWire> {
    const account = await this.parties.externalAccount(context, externalAccountId);
    if (!account || account.customerId !== agent.customerId) throw externalAccountNotFound(externalAccountId);
    return account;
  }

  private async requireOwnDestination(context: RequestContext, agent: AgentView, accountId: string): Promise<void> {
    const [external, internal] = await Promise.all([
      this.parties.externalAccount(context, accountId),
      this.parties.internalAccount(context, accountId),
    ]);
    const owner = external?.customerId ?? internal?.customerId;
    if (owner !== agent.customerId) throw notOwnAccount('destination.accountId', accountId);
  }
}
