import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AgentActionGetData,
  type AgentActionIdData,
  type AgentActionsListData,
  type AgentActionWire,
  type AgentExecuteQuoteData,
  type AgentRoute,
  type AgentTransferData,
  CLOCK,
  type Clock,
  idForRequest,
  idempotencyScopeOf,
  isIdOf,
  type ListAgentApprovalsData,
  type Page,
  parseMinorUnits,
  type RejectAgentActionData,
  type CustomerWire,
  type RequestContext,
  type ServiceRequest,
  type SignedReply,
  subjects,
  TRANSFER_AMOUNT_MAX,
  type TransferOutData,
  type WalletAuthorization,
  type WalletFundedChangeData,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { AGENT_OPTIONS, type AgentOptions } from '../agents/agent-options';
import type { AgentView } from '../agents/agent';
import { AgentQuoteEntity } from '../agents/agent-quote';
import { ActingAgent } from '../agents/acting-agent';
import { filters, pageOf } from '../list';
import { AgentParties } from '../parties';
import { currenciesToConvertInto, evaluateSpend, type Rate, type Rates } from '../policy/evaluate-policy';
import { UsageLedger } from '../usage/usage-ledger';
import {
  actionDecider,
  actionNotFound,
  type ActionView,
  approveAction,
  rejectAction,
  renderAction,
  requireSameSubmission,
  type SubmitAction,
  submitAction,
} from './action';
import { ActionExecutor } from './action-executor';
import { ActionEntity } from './action-view.projection';
import { judgeQuoteExecution, spendOf, type Submission, submitActionCommand } from './submission';
import { judgeAgentTransfer } from './transfer-pair';
import { walletStampTargetOf } from './wallet-stamp';

const logger = createLogger('agents:actions');

/**
 * The agent's money-moving routes (execute a quote, transfer out, transfer in) as AgentActions, the
 * platform's approve and reject, and the action lists. Submitting: check the route, gather the
 * facts, reserve usage under the policy (usage-ledger.ts), record the action, and execute it at
 * once when it needs no approval (action-executor.ts).
 */
@Controller()
export class ActionsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly acting: ActingAgent,
    private readonly parties: AgentParties,
    private readonly usage: UsageLedger,
    private readonly executor: ActionExecutor,
    @Inject(AGENT_OPTIONS) private readonly options: AgentOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.agents.me.executeQuote)
  async executeQuote(@Payload() request: ServiceRequest<AgentExecuteQuoteData>): Promise<AgentActionWire> {
    const { context, data } = request;
    return this.submit(context, 'executeQuote', async (agent) => {
      const quoteId = data.quoteId;
      const own =
        isIdOf('Quote', quoteId) &&
        (await this.eventSourcing.em.findOne(AgentQuoteEntity, { quoteId, agentId: agent.id, platformId: context.platformId })) !== null;
      // Another agent's quote is never read from payments: its 404 says nothing about it.
      const { quote, accountId } = judgeQuoteExecution({
        quoteId,
        own,
        ...(own ? { quote: await this.parties.quote(context, quoteId) } : {}),
      });
      // Before any usage is reserved or action recorded: a missing or bad stamp changes nothing.
      const wallet = walletStampTargetOf(quote);
      if (wallet) await this.parties.verifyWalletStamp(context, wallet, data.walletSignature);
      const walletSignature = wallet && data.walletSignature !== undefined ? { walletSignature: data.walletSignature } : {};
      return {
        route: 'executeQuote',
        permission: 'EXECUTE_QUOTES',
        accountId,
        amount: BigInt(quote.totalSendingAmount),
        currency: quote.sendingCurrency.code,
        request: { kind: 'EXECUTE_QUOTE', quoteId, ...walletSignature },
        quote,
      };
    });
  }

  /**
   * A transfer out of the customer's Embedded Wallet takes the wallet's signed retry, as the
   * platform's route does (decision 0020): a 202 with the payload the customer's device signs, then
   * the same request with Grid-Wallet-Signature and Request-Id. Nothing is reserved or recorded
   * until the stamp verifies; the action then carries the transfer id the consent names.
   */
  @MessagePattern(subjects.agents.me.transferOut)
  async transferOut(@Payload() request: ServiceRequest<AgentTransferData>): Promise<SignedReply<AgentActionWire>> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'transferOut');
    const { actionId, answer } = await this.earlierAnswer(context, 'transferOut', agent);
    if (answer) return { status: 201, body: answer };
    const [customer, gathered] = await Promise.all([
      this.parties.customer(context, agent.customerId),
      this.transferOutOf(context, data, agent),
    ]);
    if ('challenge' in gathered) return gathered.challenge;
    return { status: 201, body: await this.record(context, actionId, agent, customer, gathered) };
  }

  private async transferOutOf(
    context: RequestContext,
    data: AgentTransferData,
    agent: AgentView,
  ): Promise<Submission | { challenge: SignedReply<never> }> {
    const [internal, external] = await Promise.all([
      this.parties.internalAccount(context, data.source?.accountId),
      this.parties.externalAccount(context, data.destination?.accountId),
    ]);
    const requested = { source: data.source?.accountId, destination: data.destination?.accountId };
    const pair = judgeAgentTransfer({ direction: 'OUT', customerId: agent.customerId, internal, external, requested });
    const [source, destination, currency] = [pair.internal, pair.external, pair.currency];
    const amount = requireAmount(data.amount);
    const paymentRail = data.destination.paymentRail !== undefined ? { paymentRail: data.destination.paymentRail } : {};
    const consent =
      source.type === 'EMBEDDED_WALLET'
        ? await this.walletConsent(context, data, { source: source.id, destination: destination.id, amount, paymentRail })
        : undefined;
    if (consent?.status === 202) return { challenge: consent };
    const transactionId = consent?.status === 200 ? consent.body?.resourceId : undefined;
    return {
      route: 'transferOut',
      permission: 'CREATE_TRANSFERS',
      accountId: source.id,
      amount,
      currency,
      request: {
        kind: 'TRANSFER_OUT',
        sourceAccountId: source.id,
        destinationAccountId: destination.id,
        amount: amount.toString(),
        ...paymentRail,
        ...(transactionId ? { transactionId } : {}),
      },
    };
  }

  /** The wallet's signed retry of a transfer out of an Embedded Wallet (accounts decides), before anything is reserved. */
  private walletConsent(
    context: RequestContext,
    data: AgentTransferData,
    transfer: { source: string; destination: string; amount: bigint; paymentRail: { paymentRail?: string } },
  ): Promise<SignedReply<WalletAuthorization>> {
    const body: TransferOutData = {
      source: { accountId: transfer.source },
      destination: { accountId: transfer.destination, ...transfer.paymentRail },
      amount: transfer.amount.toString(),
    };
    const headers = {
      ...(data.walletSignature !== undefined ? { walletSignature: data.walletSignature } : {}),
      ...(data.requestId !== undefined ? { requestId: data.requestId } : {}),
    };
    const consent: WalletFundedChangeData = {
      accountIds: [transfer.source],
      bindAccountIds: [],
      operation: 'TRANSFER_OUT',
      targetId: transfer.source,
      body,
      ...headers,
    };
    return this.parties.request<SignedReply<WalletAuthorization>>(subjects.accounts.embeddedWallet.walletFundedChange, consent, context);
  }

  @MessagePattern(subjects.agents.me.transferIn)
  async transferIn(@Payload() request: ServiceRequest<AgentTransferData>): Promise<AgentActionWire> {
    const { context, data } = request;
    return this.submit(context, 'transferIn', async (agent) => {
      const [external, internal] = await Promise.all([
        this.parties.externalAccount(context, data.source?.accountId),
        this.parties.internalAccount(context, data.destination?.accountId),
      ]);
      const requested = { source: data.source?.accountId, destination: data.destination?.accountId };
      const pair = judgeAgentTransfer({ direction: 'IN', customerId: agent.customerId, internal, external, requested });
      const [source, destination, currency] = [pair.external, pair.internal, pair.currency];
      const amount = requireAmount(data.amount);
      return {
        route: 'transferIn',
        permission: 'CREATE_TRANSFERS',
        accountId: destination.id,
        amount,
        currency,
        request: { kind: 'TRANSFER_IN', sourceAccountId: source.id, destinationAccountId: destination.id, amount: amount.toString() },
      };
    });
  }

  @MessagePattern(subjects.agents.action.approve)
  async approve(@Payload() request: ServiceRequest<AgentActionIdData>): Promise<AgentActionWire> {
    const { context, data } = request;
    const ids = this.ids(context, data);
    const command = { type: 'ApproveAction' as const, data: ids, metadata: { now: this.clock.now() } };
    await this.eventSourcing.handle(ids.actionId, actionDecider, (state) => approveAction(command, state), context);
    // The approval is recorded (the execution is due) before payments is asked: if this process
    // dies here, the executor's sweep executes it, once.
    const { action } = await this.executor.execute(ids.actionId, context.platformId);
    return renderAction(action);
  }

  @MessagePattern(subjects.agents.action.reject)
  async reject(@Payload() request: ServiceRequest<RejectAgentActionData>): Promise<AgentActionWire> {
    const { context, data } = request;
    const ids = this.ids(context, data);
    const command = {
      type: 'RejectAction' as const,
      data: { ...ids, ...(data.reason !== undefined ? { reason: data.reason } : {}) },
      metadata: { now: this.clock.now() },
    };
    const { state } = await this.eventSourcing.handle(ids.actionId, actionDecider, (current) => rejectAction(command, current), context);
    if (state.kind !== 'Exists') throw actionNotFound(ids.actionId);
    await this.usage.release(ids.actionId);
    return renderAction(state.action);
  }

  @MessagePattern(subjects.agents.action.listApprovals)
  async listApprovals(@Payload() request: ServiceRequest<ListAgentApprovalsData>): Promise<Page<AgentActionWire>> {
    const { data } = request;
    const where = filters(request.context.platformId);
    where.clauses.push(`status = 'PENDING_APPROVAL'`);
    where.equal('agent_id', data.agentId);
    where.equal('customer_id', data.customerId);
    where.compare('created_at', '>=', data.startDate);
    where.compare('created_at', '<=', data.endDate);
    return pageOf<{ id: string; action: ActionView; created_at: Date }, AgentActionWire>(
      this.eventSourcing,
      `${this.options.schema}.agent_actions`,
      'action',
      where,
      data,
      (row) => renderAction(row.action),
    );
  }

  @MessagePattern(subjects.agents.me.listActions)
  async listOwn(@Payload() request: ServiceRequest<AgentActionsListData>): Promise<Page<AgentActionWire>> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'listActions');
    const where = filters(context.platformId);
    where.equal('agent_id', agent.id);
    where.equal('status', data.status);
    return pageOf<{ id: string; action: ActionView; created_at: Date }, AgentActionWire>(
      this.eventSourcing,
      `${this.options.schema}.agent_actions`,
      'action',
      where,
      data,
      (row) => renderAction(row.action),
    );
  }

  @MessagePattern(subjects.agents.me.getAction)
  async getOwn(@Payload() request: ServiceRequest<AgentActionGetData>): Promise<AgentActionWire> {
    const { context, data } = request;
    const agent = await this.acting.authorize(context, 'getAction');
    const row = isIdOf('AgentAction', data.actionId)
      ? await this.eventSourcing.em.findOne(
          ActionEntity,
          { id: data.actionId, agentId: agent.id, platformId: context.platformId },
          { fields: ['action'] },
        )
      : null;
    if (!row) throw actionNotFound(data.actionId);
    return renderAction(row.action);
  }

  private ids(context: RequestContext, data: AgentActionIdData) {
    if (!isIdOf('AgentAction', data.actionId)) throw actionNotFound(data.actionId);
    return { actionId: data.actionId, agentId: String(data.agentId), platformId: context.platformId };
  }

  private async submit(
    context: RequestContext,
    route: AgentRoute,
    gather: (agent: AgentView) => Promise<Submission>,
  ): Promise<AgentActionWire> {
    const agent = await this.acting.authorize(context, route);
    const { actionId, answer } = await this.earlierAnswer(context, route, agent);
    if (answer) return answer;
    const [customer, submission] = await Promise.all([this.parties.customer(context, agent.customerId), gather(agent)]);
    return this.record(context, actionId, agent, customer, submission);
  }

  /**
   * The action id under the request's Idempotency-Key, and the answer when a retry finds the action
   * its first attempt recorded (that answer never arrived: a replica killed, payments slow). It
   * answers before anything is judged again: judged again, the quote its first attempt executed is
   * no longer PENDING, and the agent would hear a 409 for a payment that was made. Another request
   * under the key is a 409.
   */
  private async earlierAnswer(
    context: RequestContext,
    route: AgentRoute,
    agent: AgentView,
  ): Promise<{ actionId: string; answer?: AgentActionWire }> {
    const { actionId, earlier } = await this.actionIdFor(context, route, agent.id);
    if (!earlier) return { actionId };
    requireSameSubmission(earlier, { agentId: agent.id, requestFingerprint: context.requestFingerprint });
    return { actionId, answer: await this.executeAndAnswer(actionId, context) };
  }

  /** Reserves usage under the policy, records the action and executes it at once when it needs no approval. */
  private async record(
    context: RequestContext,
    actionId: string,
    agent: AgentView,
    customer: CustomerWire,
    submission: Submission,
  ): Promise<AgentActionWire> {
    const rates = await this.ratesFor(context, agent.policy, submission.currency);
    // An earlier attempt that reserved and died before recording the action: give its reservation back first.
    if (context.idempotencyKey) await this.usage.release(actionId);
    const now = this.clock.now();
    const decision = await this.usage.reserve(agent.id, actionId, now, (usage) =>
      evaluateSpend(agent.policy, spendOf(submission), usage, rates),
    );
    const facts = {
      actionId,
      agent,
      platformId: context.platformId,
      platformCustomerId: customer.platformCustomerId,
      ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
      now,
    };
    await this.append(context, agent.id, submitActionCommand(submission, facts, decision));
    return this.executeAndAnswer(actionId, context);
  }

  /** The rates from the request's currency into each currency the policy judges in, as payments quotes them now. */
  private async ratesFor(context: RequestContext, policy: AgentView['policy'], currency: string): Promise<Rates> {
    const rates: Record<string, Rate> = {};
    for (const target of currenciesToConvertInto(policy, currency)) rates[target] = await this.parties.rate(context, currency, target);
    return rates;
  }

  /** Records the action whose usage is reserved; when that fails, gives the reservation back and answers with the failure. */
  private async append(context: RequestContext, agentId: string, command: SubmitAction): Promise<void> {
    const actionId = command.data.action.id;
    try {
      await this.eventSourcing.handle(actionId, actionDecider, (state) => submitAction(command, state), context, { assumeNew: true });
    } catch (error) {
      // The action was not recorded: give its reservation back. If that fails too, the agent still
      // hears why the action was not recorded, and the reservation, now without an action, is
      // released by the executor's sweep once it is two minutes old.
      await this.usage
        .release(actionId)
        .catch((releaseError: unknown) =>
          logger.error(
            { agentId, actionId, cause: error instanceof Error ? error.message : String(error), err: releaseError },
            'Could not give back the usage reserved for an agent action that was not recorded; the sweep releases it after two minutes.',
          ),
        );
      throw error;
    }
  }

  /** Executes the action if it is due and answers with it as it then is. */
  private async executeAndAnswer(actionId: string, context: RequestContext): Promise<AgentActionWire> {
    const { action, refusal } = await this.executor.execute(actionId, context.platformId);
    // Executed at once and refused by payments (funds short…): the action is FAILED and its usage
    // given back; the agent hears payments' reason, which the AgentAction has no member for.
    if (refusal) throw refusal;
    return renderAction(action);
  }

  /**
   * The action id of a submission, and the action already recorded under it. In the agent's own
   * scope (decision 0028); before that an agent's action ids were derived in its platform's scope, so
   * a retry that straddles the change looks there too and takes the action found only when it is
   * this agent's. (That look-up can go once no retry can straddle it: keys are kept 24 h.)
   */
  private async actionIdFor(
    context: RequestContext,
    route: AgentRoute,
    agentId: string,
  ): Promise<{ actionId: string; earlier?: ActionView }> {
    const operation = `agent-${route}`;
    const actionId = idForRequest('AgentAction', idempotencyScopeOf(context), operation, context.idempotencyKey);
    if (!context.idempotencyKey) return { actionId };
    const earlier = await this.recorded(actionId);
    if (earlier) return { actionId, earlier };
    const legacyId = idForRequest('AgentAction', { platformId: context.platformId }, operation, context.idempotencyKey);
    const legacy = await this.recorded(legacyId);
    return legacy?.agentId === agentId ? { actionId: legacyId, earlier: legacy } : { actionId };
  }

  private async recorded(actionId: string): Promise<ActionView | undefined> {
    const { state } = await this.eventSourcing.load(actionId, actionDecider);
    return state.kind === 'Exists' ? state.action : undefined;
  }
}

/** An agent names the amount it moves (a JSON integer, as the reference's body has it), so its policy can be applied. */
const requireAmount = (amount: unknown): bigint =>
  parseMinorUnits(amount, { field: 'amount', min: 1n, max: BigInt(TRANSFER_AMOUNT_MAX), type: 'number' });
