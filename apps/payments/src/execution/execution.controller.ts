import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  DomainError,
  type ExecuteQuoteData,
  isIdOf,
  type QuoteWire,
  type RequestContext,
  type SandboxSendData,
  type ServiceRequest,
  subjects,
  toTransactionWire,
  type TransactionWire,
  type VerifyWalletStampData,
} from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import { EventSourcing } from '@corridor/event-store';
import { type ExpireQuote, expireQuote } from '../quotes/expire-quote';
import { type QuoteRow, renderQuote } from '../quotes/quote-view.projection';
import { quoteNotFound } from '../quotes/quote-errors';
import { type Transaction, transactionDecider } from '../transactions/transaction';
import { type ExecuteQuote, executeQuote } from './execute-quote';
import { EXECUTION_OPTIONS, type ExecutionOptions } from './execution-options';
import { EXECUTE_HOLD_WAIT_MS, PaymentProcessor } from './payment-processor';
import { railOutcomeOfQuote } from '../transactions/payout-rail';
import { judgeRealtimeFunding } from './realtime-funding';

const WALLET_STAMP_TIMEOUT_MS = 5_000;
const QUOTE_BY_ID = 'SELECT transaction_id, expires_at, terms FROM payments.quotes WHERE id = $1 AND platform_id = $2';

/** POST /quotes/{id}/execute and POST /sandbox/send: start a quote's payment, then let the processor drive it. */
@Controller()
export class ExecutionController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly processor: PaymentProcessor,
    private readonly client: ServiceClient,
    @Inject(EXECUTION_OPTIONS) private readonly options: ExecutionOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.payments.quote.execute)
  async execute(@Payload() request: ServiceRequest<ExecuteQuoteData>): Promise<QuoteWire> {
    const row = await this.quoteOf(request.context, request.data.quoteId);
    await this.checkWalletStamp(request.context, row, request.data.walletSignature);
    const state = await this.start(row, request.context, { funding: 'ACCOUNT' });
    return renderQuote({ status: state.transaction.status, terms: state.quote });
  }

  @MessagePattern(subjects.payments.sandbox.send)
  async send(@Payload() request: ServiceRequest<SandboxSendData>): Promise<TransactionWire> {
    const row = await this.quoteOf(request.context, request.data.quoteId);
    const fundedAmount = judgeRealtimeFunding(request.data.quoteId, row.terms, request.data);
    const state = await this.start(row, request.context, { funding: 'REALTIME', fundedAmount });
    return toTransactionWire(state.transaction);
  }

  /**
   * A quote from an Embedded Wallet executes only with a stamp by one of the wallet's active sessions
   * over its payloadToSign. The verified stamp leaves the wallet's consent to this transaction's hold
   * of the sending amount, which the ledger requires before it holds wallet money (decision 0020).
   */
  private async checkWalletStamp(
    context: RequestContext,
    row: Pick<QuoteRow, 'terms' | 'transactionId'>,
    walletSignature: string | undefined,
  ): Promise<void> {
    const { terms } = row;
    const instruction = terms.paymentInstructions?.find((candidate) => candidate.accountOrWalletInfo.accountType === 'EMBEDDED_WALLET');
    const payloadToSign = instruction?.accountOrWalletInfo['payloadToSign'];
    if (typeof payloadToSign !== 'string' || terms.source.sourceType !== 'ACCOUNT') return;
    const data: VerifyWalletStampData = {
      accountId: terms.source.accountId,
      payloadToSign,
      ...(walletSignature !== undefined ? { walletSignature } : {}),
      grant: { transactionId: row.transactionId, amount: terms.totalSendingAmount, currency: terms.sendingCurrency },
    };
    await this.client.request(subjects.accounts.embeddedWallet.verifyStamp, data, { context, timeoutMs: WALLET_STAMP_TIMEOUT_MS });
  }

  private async quoteOf(context: RequestContext, quoteId: unknown) {
    if (typeof quoteId !== 'string' || !isIdOf('Quote', quoteId)) throw quoteNotFound(String(quoteId));
    // A prepared statement: on every execute, so without MikroORM's per-query work.
    const [row] = await this.eventSourcing.read<{ transaction_id: string; expires_at: Date; terms: QuoteRow['terms'] }>(
      'execution-quote-by-id',
      QUOTE_BY_ID,
      [quoteId, context.platformId],
    );
    if (!row) throw quoteNotFound(quoteId);
    return { transactionId: row.transaction_id, expiresAt: new Date(row.expires_at), terms: row.terms };
  }

  /**
   * Executes the quote's transaction. A quote found past its expiry is expired first (the decider
   * that owns that rule decides), so the 409 leaves it EXPIRED with QUOTE_EXPIRED rather than
   * PENDING until the next sweep.
   */
  private async start(
    row: Pick<QuoteRow, 'transactionId' | 'expiresAt'>,
    context: RequestContext,
    how: Pick<ExecuteQuote['data'], 'funding' | 'fundedAmount'>,
  ): Promise<Extract<Transaction, { kind: 'Quoted' }>> {
    const { transactionId } = row;
    const now = this.clock.now();
    if (now.getTime() >= row.expiresAt.getTime()) {
      const expire: ExpireQuote = { type: 'ExpireQuote', data: { transactionId }, metadata: { now } };
      await this.eventSourcing.handle(transactionId, transactionDecider, (state) => expireQuote(expire, state), context);
    }
    const { state } = await this.eventSourcing
      .handle(
        transactionId,
        transactionDecider,
        (current) => {
          const rail = current.kind === 'Quoted' ? railOutcomeOfQuote(current.quote) : 'SUCCESS';
          const agent = context.actor.kind === 'agent' ? { agentId: context.actor.agentId } : {};
          const command: ExecuteQuote = {
            type: 'ExecuteQuote',
            data: { transactionId, rail, ...how, ...agent },
            metadata: { now, delays: this.options.delays },
          };
          return executeQuote(command, current);
        },
        context,
      )
      .catch(async (error: unknown) => {
        if (error instanceof DomainError && error.status === 409) await this.showStreamHead(transactionId);
        throw error;
      });
    if (state.kind !== 'Quoted') throw new Error(`Executing ${transactionId} left it ${state.kind}.`);
    // From an internal account: answer once the hold is placed and shown (a GET of the source right
    // after shows the funds held). Real-time funding holds nothing; its drive goes on in the background.
    if (how.funding === 'ACCOUNT') await this.processor.startExecuted(transactionId, context.platformId, state, EXECUTE_HOLD_WAIT_MS);
    else void this.processor.kick(transactionId, context.platformId, state);
    return state;
  }

  /**
   * A 409 names the status the stream has reached, which the processor may have appended without
   * waiting for the read models (decision 0008). Before it answers, the read models catch up with
   * the stream, so a GET /transactions/{id} right after shows at least the status the 409 names.
   * Only refusals pay this read; an execute that starts a payment does not.
   */
  private async showStreamHead(transactionId: string): Promise<void> {
    const { events } = await this.eventSourcing.store.readStream(transactionId);
    const last = events[events.length - 1];
    if (last) await this.eventSourcing.projections.waitFor(last.globalPosition);
  }
}
