import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CreateQuoteData,
  currencyOf,
  DomainError,
  idForRequest,
  idempotencyScopeOf,
  isIdOf,
  MINOR_UNITS_MAX,
  parseMinorUnits,
  type QuoteIdData,
  type QuoteWire,
  type ServiceRequest,
  subjects,
} from '@corridor/contracts';
import { asOfTime, EventSourcing } from '@corridor/event-store';
import { feeTermsFor } from '../pricing/fee-schedule';
import { ExchangeRateCache } from '../exchange-rates/rate-provider';
import { sandboxSendingLimits } from '../pricing/sandbox-rates';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { type ExecuteQuote, executeQuote } from '../execution/execute-quote';
import { EXECUTION_OPTIONS, type ExecutionOptions } from '../execution/execution-options';
import { EXECUTE_HOLD_WAIT_MS, PaymentProcessor } from '../execution/payment-processor';
import { railOutcomeOfQuote } from '../transactions/payout-rail';
import { transactionDecider } from '../transactions/transaction';
import { type CreateQuote, createQuote, requireSameQuoteRequest } from './create-quote';
import { checkPayerFields, checkSenderCustomerInfo, requiredPayerFields, sandboxRequiredPayerFields } from './payer-fields';
import { QuoteParties } from './quote-parties';
import { quoteAsOf } from './quote-as-of';
import { QuoteEntity, renderQuote } from './quote-view.projection';
import { receivingLimitsOf } from '../uma/lookup-for-quote';

export const quoteNotFound = (quoteId: string): DomainError =>
  new DomainError('QUOTE_NOT_FOUND', 'not_found', `Quote ${quoteId} was not found.`, { quoteId });

@Controller()
export class QuotesController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly parties: QuoteParties,
    private readonly rates: ExchangeRateCache,
    @Inject(PAYMENTS_OPTIONS) private readonly options: PaymentsOptions,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
    @Inject(EXECUTION_OPTIONS) private readonly execution: ExecutionOptions,
  ) {}

  /** Look up the parties and the rates → decide → append the quote with its PENDING transaction. */
  @MessagePattern(subjects.payments.quote.create)
  async create(@Payload() request: ServiceRequest<CreateQuoteData>): Promise<QuoteWire> {
    const { context, data } = request;
    parseMinorUnits(data.lockedCurrencyAmount, { field: 'lockedCurrencyAmount', min: 0n, max: MINOR_UNITS_MAX });
    checkSenderCustomerInfo(data.senderCustomerInfo);
    const lookup = await this.parties.citedLookup(context, data);
    const [{ source, payer }, destination, snapshot] = await Promise.all([
      this.parties.sourceAndPayer(context, data.source),
      this.parties.destination(context, data.destination, lookup),
      this.rates.current(),
    ]);
    const receivingLimits = lookup ? receivingLimitsOf(lookup, destination.currency) : undefined;
    // A platform's own payment has no customer profile to check against the corridor's table (the
    // platform is the known payer); what a cited receiver made mandatory is always asked for.
    const corridor = payer === null ? [] : sandboxRequiredPayerFields(source.currency, destination.currency);
    checkPayerFields(requiredPayerFields(corridor, lookup?.requiredPayerDataFields), payer, data.senderCustomerInfo);
    const priced = snapshot.currencies.includes(source.currency) && snapshot.currencies.includes(destination.currency);
    // Ids from the Idempotency-Key: a retry after an answer that never arrived finds the first
    // attempt's quote instead of making a second one. An agent's quotes and the platform's own are
    // apart even under one key: the key's scope is the actor's.
    const scope = idempotencyScopeOf(context);
    const transactionId = idForRequest('Transaction', scope, 'create-quote', context.idempotencyKey);
    const quoteId = idForRequest('Quote', scope, 'create-quote', context.idempotencyKey);
    const command: CreateQuote = {
      type: 'CreateQuote',
      data: {
        quoteId,
        transactionId,
        platformId: context.platformId,
        request: data,
        source,
        destination,
        legs: priced
          ? {
              sendingMinorToMsat: snapshot.minorToMsat(source.currency),
              msatToReceivingMinor: snapshot.msatToMinor(destination.currency),
              sendingDecimals: currencyOf(source.currency).decimals,
              receivingDecimals: currencyOf(destination.currency).decimals,
            }
          : null,
        fees: feeTermsFor(this.options.feeSchedules, context.platformId, source.currency),
        sendingLimits: sandboxSendingLimits[source.currency] ?? { min: 1n, max: 0n },
        ...(receivingLimits ? { receivingLimits } : {}),
        ...(context.idempotencyKey !== undefined && context.requestFingerprint !== undefined
          ? { requestFingerprint: context.requestFingerprint }
          : {}),
      },
      metadata: { now: this.clock.now(), ttlSeconds: this.options.quoteTtlSeconds },
    };
    // immediatelyExecute: the quote and the start of its payment are one append, so neither exists without the other.
    const decide = (current: Parameters<typeof createQuote>[1]) => {
      const created = createQuote(command, current);
      if (data.immediatelyExecute !== true) return created;
      const quoted = created.reduce(transactionDecider.evolve, current);
      if (quoted.kind !== 'Quoted') return created;
      const execute: ExecuteQuote = {
        type: 'ExecuteQuote',
        data: { transactionId, funding: 'ACCOUNT', rail: railOutcomeOfQuote(quoted.quote) },
        metadata: { now: command.metadata.now, delays: this.execution.delays },
      };
      return [...created, ...executeQuote(execute, quoted)];
    };
    const { state, events, replayed } = await this.eventSourcing.handle(transactionId, transactionDecider, decide, context, {
      assumeNew: true,
      commandId: `create-quote:${transactionId}`,
    });
    if (replayed) {
      requireSameQuoteRequest(events, quoteId, context.requestFingerprint);
      return this.read(context.platformId, quoteId);
    }
    if (state.kind !== 'Quoted') throw new Error(`Creating quote ${command.data.quoteId} left its transaction ${state.kind}.`);
    // As for POST /quotes/{id}/execute: the answer (PROCESSING) comes once the hold is placed and shown.
    if (state.execution) await this.processor.startExecuted(transactionId, context.platformId, state, EXECUTE_HOLD_WAIT_MS);
    return renderQuote({ status: state.transaction.status, terms: state.quote });
  }

  @MessagePattern(subjects.payments.quote.get)
  async get(@Payload() request: ServiceRequest<QuoteIdData>): Promise<QuoteWire> {
    const { quoteId } = request.data;
    if (!isIdOf('Quote', quoteId)) throw quoteNotFound(String(quoteId));
    if (request.data.asOf !== undefined) return this.readAsOf(request.context.platformId, quoteId, asOfTime(request.data.asOf));
    return this.read(request.context.platformId, quoteId);
  }

  /** The quote as it stood at `at` (decision 0039): the read model names its transaction, whose stream is folded up to then. */
  private async readAsOf(platformId: string, quoteId: string, at: Date): Promise<QuoteWire> {
    const row = await this.eventSourcing.em.findOne(QuoteEntity, { id: quoteId, platformId }, { fields: ['transactionId'] });
    if (!row) throw quoteNotFound(quoteId);
    const { events } = await this.eventSourcing.store.readStream(row.transactionId);
    const quote = quoteAsOf(events, at, quoteId, platformId);
    if (!quote) throw quoteNotFound(quoteId);
    return quote;
  }

  private async read(platformId: string, quoteId: string): Promise<QuoteWire> {
    const row = await this.eventSourcing.em.findOne(QuoteEntity, { id: quoteId, platformId });
    if (!row) throw quoteNotFound(quoteId);
    return renderQuote(row);
  }
}
