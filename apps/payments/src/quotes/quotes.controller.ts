import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CreateQuoteData,
  currencyOf,
  idForRequest,
  idempotencyScopeOf,
  isIdOf,
  MINOR_UNITS_MAX,
  parseMinorUnits,
  type QuoteIdData,
  type QuoteWire,
  type RequestContext,
  type ServiceRequest,
  subjects,
} from '@corridor/contracts';
import { asOfTime, EventSourcing } from '@corridor/event-store';
import { feeTermsFor } from '../pricing/fee-schedule';
import { ExchangeRateCache, type RateSnapshot } from '../exchange-rates/rate-provider';
import { sandboxSendingLimits } from '../pricing/sandbox-rates';
import { PAYMENTS_OPTIONS, type PaymentsOptions } from '../payments-options';
import { createQuoteAndExecute } from '../execution/immediate-execution';
import { EXECUTION_OPTIONS, type ExecutionOptions } from '../execution/execution-options';
import { EXECUTE_HOLD_WAIT_MS, PaymentProcessor } from '../execution/payment-processor';
import { transactionDecider } from '../transactions/transaction';
import { type CreateQuote, requireSameQuoteRequest, type ResolvedDestination, type ResolvedSource } from './create-quote';
import { quoteNotFound } from './quote-errors';
import { checkPayerFields, checkSenderCustomerInfo, requiredPayerFields, sandboxRequiredPayerFields } from '../uma/payer-fields';
import { QuoteParties } from './quote-parties';
import { quoteAsOf } from './quote-as-of';
import { QuoteEntity, renderQuote } from './quote-view.projection';
import { receivingLimitsOf } from '../uma/lookup-for-quote';
import type { ReceiverLookupRecord } from '../uma/receiver-lookup';

type QuoteFacts = {
  lookup: ReceiverLookupRecord | null;
  source: ResolvedSource;
  destination: ResolvedDestination;
  snapshot: RateSnapshot;
};

/** The two legs through mSATs createQuote prices with; null when the rate table does not price one of the currencies. */
const legsOf = (snapshot: RateSnapshot, sending: string, receiving: string): CreateQuote['data']['legs'] =>
  snapshot.currencies.includes(sending) && snapshot.currencies.includes(receiving)
    ? {
        sendingMinorToMsat: snapshot.minorToMsat(sending),
        msatToReceivingMinor: snapshot.msatToMinor(receiving),
        sendingDecimals: currencyOf(sending).decimals,
        receivingDecimals: currencyOf(receiving).decimals,
      }
    : null;

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
    const command = this.commandFor(context, data, await this.gather(context, data));
    const { quoteId, transactionId } = command.data;
    const decide = createQuoteAndExecute(command, this.execution.delays);
    const { state, events, replayed } = await this.eventSourcing.handle(transactionId, transactionDecider, decide, context, {
      assumeNew: true,
      commandId: `create-quote:${transactionId}`,
    });
    if (replayed) {
      requireSameQuoteRequest(events, quoteId, context.requestFingerprint);
      return this.read(context.platformId, quoteId);
    }
    if (state.kind !== 'Quoted') throw new Error(`Creating quote ${quoteId} left its transaction ${state.kind}.`);
    // As for POST /quotes/{id}/execute: the answer (PROCESSING) comes once the hold is placed and shown.
    if (state.execution) await this.processor.startExecuted(transactionId, context.platformId, state, EXECUTE_HOLD_WAIT_MS);
    return renderQuote({ status: state.transaction.status, terms: state.quote });
  }

  /** What createQuote decides on that must be looked up: the cited lookup, both parties and the rates. The payer's data is checked here. */
  private async gather(context: RequestContext, data: CreateQuoteData): Promise<QuoteFacts> {
    parseMinorUnits(data.lockedCurrencyAmount, { field: 'lockedCurrencyAmount', min: 0n, max: MINOR_UNITS_MAX });
    checkSenderCustomerInfo(data.senderCustomerInfo);
    const lookup = await this.parties.citedLookup(context, data);
    const [{ source, payer }, destination, snapshot] = await Promise.all([
      this.parties.sourceAndPayer(context, data.source),
      this.parties.destination(context, data.destination, lookup),
      this.rates.current(),
    ]);
    // A platform's own payment has no customer profile to check against the corridor's table (the
    // platform is the known payer); what a cited receiver made mandatory is always asked for.
    const corridor = payer === null ? [] : sandboxRequiredPayerFields(source.currency, destination.currency);
    checkPayerFields(requiredPayerFields(corridor, lookup?.requiredPayerDataFields), payer, data.senderCustomerInfo);
    return { lookup, source, destination, snapshot };
  }

  private commandFor(context: RequestContext, data: CreateQuoteData, facts: QuoteFacts): CreateQuote {
    const { lookup, source, destination, snapshot } = facts;
    const receivingLimits = lookup ? receivingLimitsOf(lookup, destination.currency) : undefined;
    // Ids from the Idempotency-Key: a retry after an answer that never arrived finds the first
    // attempt's quote instead of making a second one. An agent's quotes and the platform's own are
    // apart even under one key: the key's scope is the actor's.
    const scope = idempotencyScopeOf(context);
    return {
      type: 'CreateQuote',
      data: {
        quoteId: idForRequest('Quote', scope, 'create-quote', context.idempotencyKey),
        transactionId: idForRequest('Transaction', scope, 'create-quote', context.idempotencyKey),
        platformId: context.platformId,
        request: data,
        source,
        destination,
        legs: legsOf(snapshot, source.currency, destination.currency),
        fees: feeTermsFor(this.options.feeSchedules, context.platformId, source.currency),
        sendingLimits: sandboxSendingLimits[source.currency] ?? { min: 1n, max: 0n },
        ...(receivingLimits ? { receivingLimits } : {}),
        ...(context.idempotencyKey !== undefined && context.requestFingerprint !== undefined
          ? { requestFingerprint: context.requestFingerprint }
          : {}),
      },
      metadata: { now: this.clock.now(), ttlSeconds: this.options.quoteTtlSeconds },
    };
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
