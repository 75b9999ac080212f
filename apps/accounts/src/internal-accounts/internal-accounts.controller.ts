import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import {
  CLOCK,
  type Clock,
  type FundInternalAccountData,
  type InternalAccountIdData,
  type InternalAccountWire,
  invalidInput,
  type ListInternalAccountsData,
  type ListPlatformInternalAccountsData,
  type Page,
  parseMinorUnits,
  type ServiceRequest,
  subjects,
  type RenderInternalAccountAtData,
  SANDBOX_FUND_AMOUNT_MAX,
  isIdOf,
} from '@corridor/contracts';
import { asOfTime, EventSourcing, findPage } from '@corridor/event-store';
import { internalAccountNotFound } from './account-rules';
import { AccountWriter } from './account-writer';
import { creditAccount } from './credit-account';
import { systemAccountId } from './internal-account';
import { renderInternalAccountAsOf, renderInternalAccountAt } from './internal-account-at';
import { InternalAccountEntity, type InternalAccountRow, renderInternalAccount } from './internal-account-view.projection';

/** A platform's own accounts are few (one per supported currency), so that list is not paged; this bounds it anyway. */
const MAX_PLATFORM_ACCOUNTS = 500;

@Controller()
export class InternalAccountsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly writer: AccountWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** One account of the asking platform; unknown, malformed and other platforms' ids are all REFERENCE_NOT_FOUND. */
  @MessagePattern(subjects.accounts.internalAccount.get)
  async get(@Payload() request: ServiceRequest<InternalAccountIdData>): Promise<InternalAccountWire> {
    const { accountId } = request.data;
    if (!isIdOf('InternalAccount', accountId)) throw internalAccountNotFound(String(accountId));
    return renderInternalAccount(await this.writer.read(accountId, request.context.platformId));
  }

  @MessagePattern(subjects.accounts.internalAccount.list)
  async list(@Payload() request: ServiceRequest<ListInternalAccountsData>): Promise<Page<InternalAccountWire>> {
    const { customerId, currency, type, limit, cursor, asOf } = request.data;
    const at = asOf === undefined ? undefined : asOfTime(asOf);
    // This is the customers' list: the platform's own accounts (no customer) appear only in listPlatform.
    const where = {
      platformId: request.context.platformId,
      customerId: customerId ?? { $ne: null },
      ...(currency ? { currency } : {}),
      ...(type ? { accountType: type } : {}),
      ...(at ? { createdAt: { $lte: at } } : {}),
    } as FilterQuery<InternalAccountRow>;
    const paging = { limit, ...(cursor ? { cursor } : {}) };
    if (!at) return findPage(this.eventSourcing.em, InternalAccountEntity, where, paging, renderInternalAccount);
    // As of a past time: the accounts opened by then, in the same order and pages, each as the ledger saw it then.
    const page = await findPage(this.eventSourcing.em, InternalAccountEntity, where, paging, (row) => row);
    return { ...page, data: await this.accountsAsOf(page.data, at) };
  }

  @MessagePattern(subjects.accounts.internalAccount.listPlatform)
  async listPlatform(@Payload() request: ServiceRequest<ListPlatformInternalAccountsData>): Promise<{ data: InternalAccountWire[] }> {
    const { currency, type, asOf } = request.data;
    const at = asOf === undefined ? undefined : asOfTime(asOf);
    const where = {
      platformId: request.context.platformId,
      customerId: null,
      ...(currency ? { currency } : {}),
      ...(type ? { accountType: type } : {}),
      ...(at ? { createdAt: { $lte: at } } : {}),
    } as FilterQuery<InternalAccountRow>;
    const rows = await this.eventSourcing.em.find(InternalAccountEntity, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: MAX_PLATFORM_ACCOUNTS,
    });
    return { data: at ? await this.accountsAsOf(rows, at) : rows.map(renderInternalAccount) };
  }

  /**
   * Each account as the ledger saw it at `at`, folded from its stream (decision 0039). The rows
   * were opened by then, so a fold that finds nothing means the read model and the stream disagree:
   * that fails the request rather than drop the account from the answer.
   */
  private accountsAsOf(rows: readonly InternalAccountRow[], at: Date): Promise<InternalAccountWire[]> {
    return Promise.all(
      rows.map(async (row) => {
        const { events } = await this.eventSourcing.store.readStream(row.id);
        const account = renderInternalAccountAsOf(events, at, row.platformId);
        if (!account)
          throw new Error(`Internal account ${row.id} is listed as opened by ${at.toISOString()} but its stream says otherwise.`);
        return account;
      }),
    );
  }

  /** The account as it was right after one event of its stream, for webhook payloads. */
  @MessagePattern(subjects.accounts.internalAccount.renderAt)
  async renderAt(@Payload() request: ServiceRequest<RenderInternalAccountAtData>): Promise<InternalAccountWire> {
    const { accountId, streamPosition } = request.data;
    if (typeof accountId !== 'string' || !isIdOf('InternalAccount', accountId)) throw internalAccountNotFound(String(accountId));
    if (!Number.isSafeInteger(streamPosition) || streamPosition < 1) {
      throw invalidInput(`streamPosition must be a positive whole number, got ${JSON.stringify(streamPosition)}.`, {
        field: 'streamPosition',
      });
    }
    const { events } = await this.eventSourcing.store.readStream(accountId);
    const rendered = renderInternalAccountAt(events, streamPosition, request.context.platformId);
    if (!rendered) throw internalAccountNotFound(accountId);
    return rendered;
  }

  /** Sandbox funding: money arriving over the funding rail, without a real transfer behind it. */
  @MessagePattern(subjects.accounts.internalAccount.fund)
  async fund(@Payload() request: ServiceRequest<FundInternalAccountData>): Promise<InternalAccountWire> {
    const { context, data } = request;
    const amount = parseMinorUnits(data.amount, { field: 'amount', min: 1n, max: BigInt(SANDBOX_FUND_AMOUNT_MAX), type: 'number' });
    // The request id names the funding, so a redelivered NATS request credits once.
    const operationId = `sandbox-fund:${context.requestId}`;
    const row = await this.writer.write(data.accountId, context, (state) => {
      const currency = state.kind === 'Open' ? state.currency : '';
      const command = {
        accountId: data.accountId,
        platformId: context.platformId,
        operationId,
        amount,
        currency,
        cause: { kind: 'FUNDING' as const, id: operationId },
        counterAccountId: systemAccountId('FUNDING_RAIL', currency),
      };
      return creditAccount({ type: 'CreditAccount', data: command, metadata: { now: this.clock.now() } }, state);
    });
    return renderInternalAccount(row);
  }
}
