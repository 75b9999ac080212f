import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  type CreditData,
  DomainError,
  type ExternalAccountWire,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { sandboxRailOutcome } from '../transfers/sandbox-rail';
import { settleIncomingPayment } from './incoming-approval';
import { type IncomingPayment, incomingPaymentDecider } from './incoming-payment';

const CREDIT_TIMEOUT_MS = 5_000;

/** Credits arrive through the UMA rail, so they post against the funding rail's system account. */
export const umaCounterAccount = (currency: string): string => `SystemAccount:FUNDING_RAIL:${currency}`;
export const creditOperationId = (transactionId: string): string => `${transactionId}:deposit`;

/**
 * Makes the deposit of an approved payment and records its outcome. An internal account is
 * credited on the ledger (idempotent by the payment's operation id, so a retry after a crash never
 * credits twice); a default UMA deposit external account is paid out over the sandbox rail, so
 * nothing moves on the internal ledger, and the rail's suffix outcomes apply (an account number
 * ending 002–005 refuses it). A refusal refunds the sender (REFUNDED, OFFRAMP_FAILED); the ledger
 * or the accounts service not answering leaves it SETTLING, and the sweep retries at its due time.
 */
@Injectable()
export class IncomingSettlement {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async settle(state: IncomingPayment, context: RequestContext): Promise<IncomingPayment> {
    if (state.kind !== 'Received' || state.phase !== 'SETTLING') return state;
    const { transaction, deposit } = state;
    let outcome: 'DEPOSITED' | 'REFUSED' = 'DEPOSITED';
    let detail: string | undefined;
    if (deposit.kind === 'INTERNAL_ACCOUNT') {
      const credit: CreditData = {
        accountId: deposit.accountId,
        operationId: creditOperationId(transaction.id),
        amount: transaction.receivedAmount.value,
        currency: deposit.currency,
        cause: { kind: 'TRANSACTION', id: transaction.id },
        counterAccountId: umaCounterAccount(deposit.currency),
      };
      try {
        await this.client.request(subjects.accounts.ledger.credit, credit, { context, timeoutMs: CREDIT_TIMEOUT_MS });
      } catch (error) {
        if (!(error instanceof DomainError) || error.status >= 500) throw error;
        outcome = 'REFUSED';
        detail = `${deposit.accountId} refused the deposit: ${error.message}`;
      }
    } else {
      const refusal = await this.payoutRefusal(deposit.accountId, context);
      if (refusal !== null) {
        outcome = 'REFUSED';
        detail = refusal;
      }
    }
    const { state: after } = await this.eventSourcing.handle(
      transaction.id,
      incomingPaymentDecider,
      (current) =>
        settleIncomingPayment(
          {
            type: 'SettleIncomingPayment',
            data: { transactionId: transaction.id, outcome, ...(detail !== undefined ? { detail } : {}) },
            metadata: { now: this.clock.now() },
          },
          current,
        ),
      context,
    );
    return after;
  }

  /** Why the sandbox rail refuses a payout to this external account, or null when it pays. */
  private async payoutRefusal(externalAccountId: string, context: RequestContext): Promise<string | null> {
    try {
      const account = await this.client.request<ExternalAccountWire>(
        subjects.accounts.externalAccount.get,
        { owner: 'CUSTOMER', externalAccountId },
        { context, timeoutMs: CREDIT_TIMEOUT_MS },
      );
      const outcome = sandboxRailOutcome(account.accountInfo as unknown as Record<string, unknown>);
      return outcome === 'SUCCEEDS' ? null : `The payout to ${externalAccountId} failed on the rail: ${outcome}.`;
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) return `The deposit account ${externalAccountId} no longer exists.`;
      throw error;
    }
  }
}
