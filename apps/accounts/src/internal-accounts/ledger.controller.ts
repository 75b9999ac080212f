import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CreditData,
  type DebitData,
  type HoldData,
  type InternalAccountWire,
  invalidInput,
  type ReleaseHoldData,
  type ServiceRequest,
  type SettleHoldData,
  subjects,
} from '@corridor/contracts';
import { AccountWriter } from './account-writer';
import type { InternalAccount, InternalAccountEvent } from './internal-account';
import type { InternalAccountRow } from './internal-account-view.projection';
import { creditAccount } from './credit-account';
import { debitAccount } from './debit-account';
import { holdAndSettle } from './hold-and-settle';
import { holdFunds } from './hold-funds';
import { renderInternalAccount } from './internal-account-view.projection';
import { defaultCounterAccount, parseLedgerAmount, requireText } from './ledger-input';
import { releaseHold } from './release-hold';
import { settleHold } from './settle-hold';
import { NeedsConsent, type WalletConsent } from './wallet-consent';
import { WalletConsents } from './wallet-consents';

type Consent = WalletConsent | null | undefined;

/** The movement fields every credit, debit and hold shares, in the deciders' terms. */
const movementOf = (request: ServiceRequest<DebitData>) => {
  const { data, context } = request;
  const currency = requireText(data.currency, 'currency');
  if (typeof data.cause !== 'object' || data.cause === null)
    throw invalidInput('cause must name the kind and id of what moves the money.', { field: 'cause' });
  const cause = { kind: data.cause.kind, id: requireText(data.cause.id, 'cause.id') };
  return {
    accountId: requireText(data.accountId, 'accountId'),
    platformId: context.platformId,
    operationId: requireText(data.operationId, 'operationId'),
    amount: parseLedgerAmount(data.amount),
    currency,
    cause,
    counterAccountId: data.counterAccountId ?? defaultCounterAccount(cause.kind, currency),
    ...(data.cardId !== undefined ? { cardId: requireText(data.cardId, 'cardId') } : {}),
  };
};

/** The ledger commands other services call. Each is idempotent by the caller's operationId. */
@Controller()
export class LedgerController {
  constructor(
    private readonly writer: AccountWriter,
    private readonly consents: WalletConsents,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A hold or debit decided first without a wallet consent; a wallet's decision asks for one
   * (NeedsConsent), which is then looked up and the movement decided again with it. Accounts of
   * other types never pay the lookup.
   */
  private async writeConsented(
    accountId: string,
    context: ServiceRequest<unknown>['context'],
    decide: (consent: Consent) => (state: InternalAccount) => InternalAccountEvent[],
  ): Promise<InternalAccountRow> {
    try {
      return await this.writer.write(accountId, context, decide(undefined));
    } catch (error) {
      if (!(error instanceof NeedsConsent)) throw error;
      const consent = await this.consents.find(context.platformId, accountId, error.reference);
      return this.writer.write(accountId, context, decide(consent));
    }
  }

  @MessagePattern(subjects.accounts.ledger.credit)
  async credit(@Payload() request: ServiceRequest<CreditData>): Promise<InternalAccountWire> {
    const data = movementOf(request);
    const row = await this.writer.write(data.accountId, request.context, (state) =>
      creditAccount({ type: 'CreditAccount', data, metadata: { now: this.clock.now() } }, state),
    );
    return renderInternalAccount(row);
  }

  @MessagePattern(subjects.accounts.ledger.debit)
  async debit(@Payload() request: ServiceRequest<DebitData>): Promise<InternalAccountWire> {
    const data = movementOf(request);
    const row = await this.writeConsented(
      data.accountId,
      request.context,
      (consent) => (state) =>
        debitAccount({ type: 'DebitAccount', data: { ...data, consent }, metadata: { now: this.clock.now() } }, state),
    );
    return renderInternalAccount(row);
  }

  @MessagePattern(subjects.accounts.ledger.hold)
  async hold(@Payload() request: ServiceRequest<HoldData>): Promise<InternalAccountWire> {
    const data = { ...movementOf(request), holdId: requireText(request.data.holdId, 'holdId') };
    // An instant rail's hold settles in the same append (one request instead of a hold and a settle).
    const settleOperationId =
      request.data.settleOperationId === undefined ? undefined : requireText(request.data.settleOperationId, 'settleOperationId');
    const row = await this.writeConsented(
      data.accountId,
      request.context,
      (consent) => (state) =>
        settleOperationId === undefined
          ? holdFunds({ type: 'HoldFunds', data: { ...data, consent }, metadata: { now: this.clock.now() } }, state)
          : holdAndSettle(
              { type: 'HoldAndSettle', data: { ...data, consent, settleOperationId }, metadata: { now: this.clock.now() } },
              state,
            ),
    );
    return renderInternalAccount(row);
  }

  @MessagePattern(subjects.accounts.ledger.settle)
  async settle(@Payload() request: ServiceRequest<SettleHoldData>): Promise<InternalAccountWire> {
    const { data, context } = request;
    const command = {
      accountId: requireText(data.accountId, 'accountId'),
      platformId: context.platformId,
      operationId: requireText(data.operationId, 'operationId'),
      holdId: requireText(data.holdId, 'holdId'),
      ...(data.amount !== undefined ? { amount: parseLedgerAmount(data.amount) } : {}),
      ...(data.keepRemainder === true ? { keepRemainder: true } : {}),
    };
    const row = await this.writer.write(command.accountId, context, (state) =>
      settleHold({ type: 'SettleHold', data: command, metadata: { now: this.clock.now() } }, state),
    );
    return renderInternalAccount(row);
  }

  @MessagePattern(subjects.accounts.ledger.release)
  async release(@Payload() request: ServiceRequest<ReleaseHoldData>): Promise<InternalAccountWire> {
    const { data, context } = request;
    const command = {
      accountId: requireText(data.accountId, 'accountId'),
      platformId: context.platformId,
      operationId: requireText(data.operationId, 'operationId'),
      holdId: requireText(data.holdId, 'holdId'),
    };
    const row = await this.writer.write(command.accountId, context, (state) =>
      releaseHold({ type: 'ReleaseHold', data: command, metadata: { now: this.clock.now() } }, state),
    );
    return renderInternalAccount(row);
  }
}
