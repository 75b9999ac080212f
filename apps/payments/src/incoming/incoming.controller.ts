import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ApproveIncomingPaymentData,
  CLOCK,
  type Clock,
  type CustomerWire,
  DomainError,
  type IncomingApprovalAnswerData,
  type IncomingTransactionWire,
  invalidInput,
  isIdOf,
  isSupportedCurrency,
  idForRequest,
  idempotencyScopeOf,
  MINOR_UNITS_MAX,
  type Page,
  parseMinorUnits,
  type UmaDepositTargetsData,
  type UmaDepositTargetsWire,
  type RejectIncomingPaymentData,
  type RequestContext,
  type SandboxUmaReceiveData,
  type ServiceRequest,
  subjects,
  toIncomingTransactionWire,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createLogger, ServiceClient } from '@corridor/messaging';
import { feeTermsFor } from '../pricing/fee-schedule';
import { ExchangeRateCache, type RateSnapshot } from '../exchange-rates/rate-provider';
import { sandboxSendingLimits } from '../pricing/sandbox-rates';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { TransactionEntity } from '../transactions/transaction-view.projection';
import { ApprovalHooks } from './approval-hooks';
import { answerIncomingApproval, decideIncomingPayment, notPendingApproval } from './incoming-approval';
import { INCOMING_OPTIONS, type IncomingOptions } from './incoming-options';
import { type IncomingPayment, incomingPaymentDecider } from './incoming-payment';
import { IncomingSettlement } from './incoming-settlement';
import {
  acceptReceiver,
  type ReceiveIncomingPayment,
  receiveIncomingPayment,
  requireSameReceive,
  userNotFound,
} from './receive-incoming-payment';
import { invalidUmaAddress, resolveSandboxSender, UMA_ADDRESS } from './sandbox-sender';

const LOOKUP_TIMEOUT_MS = 5_000;

const transactionNotFound = (transactionId: string) =>
  new DomainError('TRANSACTION_NOT_FOUND', 'not_found', `Transaction ${transactionId} was not found.`, { transactionId });

const rendered = (state: IncomingPayment): IncomingTransactionWire => {
  if (state.kind !== 'Received') throw new Error('An incoming payment command left no payment.');
  return toIncomingTransactionWire(state.transaction);
};

/**
 * Incoming UMA payments: the sandbox simulator that receives one, the approval hook's answer
 * (reported by the webhooks service), and the platform's approve and reject. Each looks up what
 * it needs, decides with a pure function, appends, and makes the deposit once a payment is
 * approved, so a reply already shows COMPLETED when the money arrived.
 */
@Controller()
export class IncomingController {
  private readonly logger = createLogger('payments:incoming');

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    private readonly rates: ExchangeRateCache,
    private readonly settlement: IncomingSettlement,
    private readonly approvalHooks: ApprovalHooks,
    @Inject(PAYMENTS_OPTIONS) private readonly options: PaymentsOptions,
    @Inject(INCOMING_OPTIONS) private readonly incoming: IncomingOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.payments.incoming.receive)
  async receive(@Payload() request: ServiceRequest<SandboxUmaReceiveData>): Promise<IncomingTransactionWire> {
    const { context, data } = request;
    const amount = parseMinorUnits(data.receivingCurrencyAmount, { field: 'receivingCurrencyAmount', min: 1n, max: MINOR_UNITS_MAX });
    const currency = data.receivingCurrencyCode;
    if (!isSupportedCurrency(currency)) {
      throw new DomainError(
        'INVALID_CURRENCY',
        'validation',
        `receivingCurrencyCode ${JSON.stringify(currency)} is not a currency Corridor receives.`,
        { field: 'receivingCurrencyCode' },
      );
    }
    const sender = resolveSandboxSender(String(data.senderUmaAddress));
    // The receiver's own refusal (unknown, deleted, another platform's) wins over the other look-ups'.
    const [gathered, hook] = await Promise.allSettled([this.receiverAndDeposit(context, data), this.approvalHooks.has(context)]);
    if (gathered.status === 'rejected') throw gathered.reason;
    if (hook.status === 'rejected') throw hook.reason;
    const [customer, depositTargets, snapshot] = gathered.value;
    // From the Idempotency-Key: a retry after an answer that never arrived finds the first attempt's payment.
    const transactionId = idForRequest('Transaction', idempotencyScopeOf(context), 'sandbox-uma-receive', context.idempotencyKey);
    const command: ReceiveIncomingPayment = {
      type: 'ReceiveIncomingPayment',
      data: {
        transactionId,
        platformId: context.platformId,
        customer: { customerId: customer.id, platformCustomerId: customer.platformCustomerId },
        sender,
        currency,
        depositTargets,
        amount,
        fees: feeTermsFor(this.options.feeSchedules, context.platformId, currency),
        msatToReceivingMinor: snapshot.currencies.includes(currency) ? snapshot.msatToMinor(currency) : null,
        limits: sandboxSendingLimits[currency] ?? { min: 1n, max: 0n },
        approvalHook: hook.value,
        ...(context.idempotencyKey !== undefined && context.requestFingerprint !== undefined
          ? { requestFingerprint: context.requestFingerprint }
          : {}),
      },
      metadata: {
        now: this.clock.now(),
        webhookAnswerSeconds: this.incoming.webhookAnswerSeconds,
        settleRetrySeconds: this.incoming.settleRetrySeconds,
      },
    };
    const { state, events, replayed } = await this.eventSourcing.handle(
      transactionId,
      incomingPaymentDecider,
      (current) => receiveIncomingPayment(command, current),
      context,
      {
        assumeNew: true,
        commandId: `sandbox-uma-receive:${transactionId}`,
      },
    );
    if (replayed) requireSameReceive(events, transactionId, context.requestFingerprint);
    // Approved already when the platform has no hook to ask: the deposit is made before the answer.
    return rendered(await this.settleOrLeave(state, context));
  }

  /** The receiver, the accounts it could be paid into and the rates: by customerId all at once; by UMA address the customer first. */
  private async receiverAndDeposit(
    context: RequestContext,
    data: SandboxUmaReceiveData,
  ): Promise<[CustomerWire, UmaDepositTargetsWire, RateSnapshot]> {
    if (data.customerId !== undefined && isIdOf('Customer', data.customerId)) {
      const lookups = [this.receiver(context, data), this.depositTargetsOf(context, data.customerId), this.rates.current()];
      const settled = await Promise.allSettled(lookups);
      for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
      return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as [
        CustomerWire,
        UmaDepositTargetsWire,
        RateSnapshot,
      ];
    }
    const found = await this.receiver(context, data);
    return [found, await this.depositTargetsOf(context, found.id), await this.rates.current()];
  }

  /** From the webhooks service; the reply only acknowledges. */
  @MessagePattern(subjects.payments.incoming.approvalAnswer)
  async approvalAnswer(@Payload() request: ServiceRequest<IncomingApprovalAnswerData>): Promise<{ status: string }> {
    const { context, data } = request;
    if (!isIdOf('Transaction', data.transactionId)) throw transactionNotFound(String(data.transactionId));
    const timings = this.timings();
    const { state, events } = await this.eventSourcing.handle(
      data.transactionId,
      incomingPaymentDecider,
      (current) =>
        answerIncomingApproval(
          {
            type: 'AnswerIncomingApproval',
            data: {
              transactionId: data.transactionId,
              platformId: context.platformId,
              ...(typeof data.statusCode === 'number' ? { statusCode: data.statusCode } : {}),
              ...(typeof data.responseBody === 'string' ? { responseBody: data.responseBody } : {}),
              ...(typeof data.error === 'string' ? { error: data.error } : {}),
              ...(data.noEndpoint === true ? { noEndpoint: true } : {}),
            },
            metadata: timings,
          },
          current,
        ),
      context,
      // An approval goes on to the deposit, whose own append waits for the read models (they apply
      // events in order, so that wait covers this one too); any other answer waits below.
      { skipProjectionWait: true },
    );
    const after = await this.settleOrLeave(state, context);
    if (after === state) await this.eventSourcing.waitForReadModels(events);
    return { status: after.kind === 'Received' ? after.transaction.status : 'UNKNOWN' };
  }

  @MessagePattern(subjects.payments.incoming.approve)
  approve(@Payload() request: ServiceRequest<ApproveIncomingPaymentData>): Promise<IncomingTransactionWire> {
    const { transactionId, receiverCustomerInfo } = request.data;
    return this.decide(request.context, transactionId, {
      decision: 'APPROVE',
      ...(receiverCustomerInfo !== undefined ? { receiverCustomerInfo } : {}),
    });
  }

  @MessagePattern(subjects.payments.incoming.reject)
  reject(@Payload() request: ServiceRequest<RejectIncomingPaymentData>): Promise<IncomingTransactionWire> {
    const { transactionId, reason } = request.data;
    return this.decide(request.context, transactionId, { decision: 'REJECT', ...(reason !== undefined ? { reason } : {}) });
  }

  private async decide(
    context: RequestContext,
    transactionId: string,
    decision: { decision: 'APPROVE' | 'REJECT'; receiverCustomerInfo?: Record<string, unknown>; reason?: string },
  ): Promise<IncomingTransactionWire> {
    if (!isIdOf('Transaction', transactionId)) throw transactionNotFound(String(transactionId));
    // Another platform's transaction is unknown here; an outgoing one is not a payment awaiting approval.
    const row = await this.eventSourcing.em.findOne(
      TransactionEntity,
      { id: transactionId, platformId: context.platformId },
      { fields: ['type', 'status'] },
    );
    if (!row) throw transactionNotFound(transactionId);
    if (row.type !== 'INCOMING') throw notPendingApproval(transactionId, row.status);
    const timings = this.timings();
    const { state } = await this.eventSourcing.handle(
      transactionId,
      incomingPaymentDecider,
      (current) =>
        decideIncomingPayment(
          { type: 'DecideIncomingPayment', data: { transactionId, platformId: context.platformId, ...decision }, metadata: timings },
          current,
        ),
      context,
    );
    return rendered(await this.settleOrLeave(state, context));
  }

  /**
   * The approval is recorded; if the deposit cannot be made now (the ledger does not answer), the
   * reply shows PROCESSING and the timer sweep makes the deposit at its due time.
   */
  private async settleOrLeave(state: IncomingPayment, context: RequestContext): Promise<IncomingPayment> {
    try {
      return await this.settlement.settle(state, context);
    } catch (error) {
      this.logger.warn(
        { err: error, transactionId: state.kind === 'Received' ? state.transaction.id : undefined },
        'The deposit could not be made now; the sweep retries it.',
      );
      return state;
    }
  }

  private timings() {
    return {
      now: this.clock.now(),
      approvalWindowSeconds: this.incoming.approvalWindowSeconds,
      settleRetrySeconds: this.incoming.settleRetrySeconds,
    };
  }

  /** The receiving customer, by id or by UMA address (both: they must agree, acceptReceiver). */
  private async receiver(context: RequestContext, data: SandboxUmaReceiveData): Promise<CustomerWire> {
    const { customerId, receiverUmaAddress } = data;
    if (customerId === undefined && receiverUmaAddress === undefined) {
      throw invalidInput('Name the receiver with receiverUmaAddress or customerId.', { field: 'receiverUmaAddress' });
    }
    if (receiverUmaAddress !== undefined && !UMA_ADDRESS.test(receiverUmaAddress))
      throw invalidUmaAddress('receiverUmaAddress', receiverUmaAddress);
    const customer =
      customerId !== undefined
        ? await this.customerById(context, customerId)
        : await this.customerByAddress(context, receiverUmaAddress as string);
    return acceptReceiver(data, customer);
  }

  private async customerById(context: RequestContext, customerId: string): Promise<CustomerWire> {
    const missing = userNotFound(`customerId ${customerId} does not name a customer of this platform.`, 'customerId');
    if (!isIdOf('Customer', customerId)) throw missing;
    return this.lookup<CustomerWire>(context, subjects.customers.customer.get, { customerId }, missing);
  }

  private async customerByAddress(context: RequestContext, address: string): Promise<CustomerWire> {
    const page = await this.client.request<Page<CustomerWire>>(
      subjects.customers.customer.list,
      { umaAddress: address, limit: 1 },
      { context, timeoutMs: LOOKUP_TIMEOUT_MS },
    );
    const found = page.data[0];
    if (!found || found.umaAddress !== address)
      throw userNotFound(`No customer of this platform has the UMA address ${address}.`, 'receiverUmaAddress');
    return found;
  }

  /** The accounts an incoming payment could be deposited into; receiveIncomingPayment's chooseDeposit picks one (spec rules 3–4). */
  private depositTargetsOf(context: RequestContext, customerId: string): Promise<UmaDepositTargetsWire> {
    return this.client.request<UmaDepositTargetsWire>(
      subjects.accounts.umaDeposit.targets,
      { customerId } satisfies UmaDepositTargetsData,
      { context, timeoutMs: LOOKUP_TIMEOUT_MS },
    );
  }

  /** A 404 of the owning service becomes the caller's 404 naming the field. */
  private async lookup<Reply>(context: RequestContext, subject: string, data: unknown, missing: DomainError): Promise<Reply> {
    try {
      return await this.client.request<Reply>(subject, data, { context, timeoutMs: LOOKUP_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw missing;
      throw error;
    }
  }
}
