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
import { creditAccount } from './credit-account';
import { debitAccount } from './debit-account';
import { holdAndSettle } from './hold-and-settle';
import { holdFunds } from './hold-funds';
import { renderInternalAccount } from './internal-account-view.projection';
import { defaultCounterAccount, parseMinorUnits, requireText } from './ledger-input';
import { releaseHold } from './release-hold';
import { settleHold } from './settle-hold';

/** The movement fields every credit, debit and hold shares, in the deciders' terms. */
const movementOf = (request: ServiceRequest<CreditData>) => {
  const { data, context } = request;
  const currency = requireText(data.currency, 'currency');
  if (typeof data.cause !== 'object' || data.cause === null) throw invalidInput('cause must name the kind and id of what moves the money.', { field: 'cause' });
  const cause = { kind: data.cause.kind, id: requireText(data.cause.id, 'cause.id') };
  return {
    accountId: requireText(data.accountId, 'accountId'),
    platformId: context.platformId,
    operationId: requireText(data.operationId, 'operationId'),
    amount: parseMinorUnits(data.amount),
    currency,
    cause,
    counterAccountId: data.counterAccountId ?? defaultCounterAccount(cause.kind, currency),
  };
};

/** The ledger commands other services call. Each is idempotent by the caller's operationId. */
@Controller()
export class LedgerController {
  constructor(
    private readonly writer: AccountWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

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
    const row = await this.writer.write(data.accountId, request.context, (state) =>
      debitAccount({ type: 'DebitAccount', data, metadata: { now: this.clock.now() } }, state),
    );
    return renderInternalAccount(row);
  }

  @MessagePattern(subjects.accounts.ledger.hold)
  async hold(@Payload() request: ServiceRequest<HoldData>): Promise<InternalAccountWire> {
    const data = { ...movementOf(request), holdId: requireText(request.data.holdId, 'holdId') };
    // An instant rail's hold settles in the same append (one request instead of a hold and a settle).
    const settleOperationId = request.data.settleOperationId === undefined ? undefined : requireText(request.data.settleOperationId, 'settleOperationId');
    const row = await this.writer.write(data.accountId, request.context, (state) =>
      settleOperationId === undefined
        ? holdFunds({ type: 'HoldFunds', data, metadata: { now: this.clock.now() } }, state)
        : holdAndSettle({ type: 'HoldAndSettle', data: { ...data, settleOperationId }, metadata: { now: this.clock.now() } }, state),
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
      ...(data.amount !== undefined ? { amount: parseMinorUnits(data.amount) } : {}),
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
