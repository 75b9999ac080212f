import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import {
  claimUnique,
  CLOCK,
  type Clock,
  type CreateExternalAccountData,
  DomainError,
  type ExternalAccountIdData,
  type ExternalAccountOwnerKind,
  type ExternalAccountWire,
  invalidInput,
  type ListExternalAccountsData,
  type Page,
  type RequestContext,
  type ServiceRequest,
  subjects,
  idForRequest,
  idempotencyScopeOf,
} from '@corridor/contracts';
import { EventSourcing, findPage } from '@corridor/event-store';
import { createLogger } from '@corridor/messaging';
import { accountIdentityDecider, claimAccountIdentity, releaseAccountIdentity } from './account-identity';
import { type CreateExternalAccount, createExternalAccount } from './create-external-account';
import { CustomerDirectory } from './customer-directory';
import { deleteExternalAccount } from './delete-external-account';
import { externalAccountDecider, externalAccountNotFound, initialExternalAccount } from './external-account';
import { ExternalAccountEntity, type ExternalAccountRow, renderExternalAccount } from './external-account-view.projection';
import { PerKeyQueue } from './per-key-queue';
import { type ExternalAccountPlan, planExternalAccount } from './plan-external-account';
import {
  assignUmaDepositDefault,
  clearUmaDepositDefault,
  type UmaDepositDefault,
  umaDepositDefaultDecider,
  type UmaDepositDefaultEvent,
  umaDepositDefaultStreamId,
} from './uma-deposit-default';

const logger = createLogger('accounts:external-accounts');

const ownerFilter = (owner: ExternalAccountOwnerKind, customerId?: string) =>
  owner === 'PLATFORM' ? { customerId: null } : { customerId: customerId ?? { $ne: null } };

@Controller()
export class ExternalAccountsController {
  private readonly defaults = new PerKeyQueue(
    (streamId) =>
      new DomainError('SERVICE_UNAVAILABLE', 'unavailable', `Too many concurrent changes to ${streamId}; retry shortly.`, { streamId }),
  );

  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly customers: CustomerDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Parse → plan (every refusal the request itself earns: plan-external-account.ts) → check the
   * customer → claim the identity (409 on a duplicate) → append the account, with the sandbox's
   * verification and activation in the same append → make it the default. Every refusal comes
   * before the first write, so a refused create leaves nothing behind.
   */
  @MessagePattern(subjects.accounts.externalAccount.create)
  async create(@Payload() request: ServiceRequest<CreateExternalAccountData>): Promise<ExternalAccountWire> {
    const { context, data } = request;
    const command = this.createCommandOf(context, data);
    const { externalAccountId, customerId } = command.data;
    // A retry of a create whose answer was lost (a 503 while a replica died): the account exists,
    // and the decider tells this request again (answered with it) from another one under the key (409).
    const earlier = context.idempotencyKey ? await this.eventSourcing.load(externalAccountId, externalAccountDecider) : undefined;
    if (earlier && earlier.events.length > 0) {
      createExternalAccount(command, earlier.state);
      await this.eventSourcing.waitForReadModels(earlier.events);
      return renderExternalAccount(await this.read(context, data.owner, externalAccountId));
    }
    const plan = planExternalAccount(command, data.environment);
    if (customerId !== null) await this.customers.assertUsable(context, customerId);
    await this.claimIdentity(context, plan.identityKey, externalAccountId);
    await this.appendClaimed(context, externalAccountId, plan);
    if (plan.defaultFor !== null) {
      const assign = {
        type: 'AssignUmaDepositDefault' as const,
        data: { customerId: plan.defaultFor, externalAccountId },
        metadata: command.metadata,
      };
      await this.changeDefault(plan.defaultFor, context, (current) => assignUmaDepositDefault(assign, current));
    }
    return renderExternalAccount(await this.read(context, data.owner, externalAccountId));
  }

  /** The request as a command; the id is derived from the Idempotency-Key in the actor's scope (decision 0028). */
  private createCommandOf(context: RequestContext, data: CreateExternalAccountData): CreateExternalAccount {
    const customerId = data.owner === 'CUSTOMER' ? (data.customerId ?? null) : null;
    if (data.owner === 'CUSTOMER' && customerId === null)
      throw invalidInput('customerId is required for a customer’s external account.', { field: 'customerId' });
    const externalAccountId = idForRequest(
      'ExternalAccount',
      idempotencyScopeOf(context),
      'create-external-account',
      context.idempotencyKey,
    );
    return {
      type: 'CreateExternalAccount',
      data: {
        externalAccountId,
        platformId: context.platformId,
        customerId,
        currency: data.currency,
        accountInfo: data.accountInfo,
        platformAccountId: data.platformAccountId ?? null,
        defaultUmaDepositAccount: data.defaultUmaDepositAccount ?? false,
        ...(context.requestFingerprint !== undefined ? { requestFingerprint: context.requestFingerprint } : {}),
      },
      metadata: { now: this.clock.now() },
    };
  }

  /**
   * Appends the planned account under its claimed identity; when the append
   * fails, the identity is given back unless a twin's account holds it.
   */
  private async appendClaimed(context: RequestContext, externalAccountId: string, plan: ExternalAccountPlan): Promise<void> {
    try {
      await this.eventSourcing.handle(externalAccountId, externalAccountDecider, plan.decide, context, { assumeNew: true });
    } catch (error) {
      const holder = await this.eventSourcing.load(externalAccountId, externalAccountDecider).then(
        ({ state }) => state,
        (readError: unknown) => {
          // Unread, the stream counts as empty: the claim is given back, and a twin that does hold it
          // keeps its account (its claim is then free for the next create of the same identity).
          logger.warn(
            { externalAccountId, err: readError, cause: error instanceof Error ? error.message : String(error) },
            'Could not read an external account whose append failed; giving its identity claim back.',
          );
          return initialExternalAccount();
        },
      );
      if (holder.kind === 'None' || holder.identityKey !== plan.identityKey)
        await this.releaseIdentity(context, plan.identityKey, externalAccountId);
      throw error;
    }
  }

  @MessagePattern(subjects.accounts.externalAccount.get)
  async get(@Payload() request: ServiceRequest<ExternalAccountIdData>): Promise<ExternalAccountWire> {
    return renderExternalAccount(await this.read(request.context, request.data.owner, request.data.externalAccountId));
  }

  @MessagePattern(subjects.accounts.externalAccount.list)
  list(@Payload() request: ServiceRequest<ListExternalAccountsData>): Promise<Page<ExternalAccountWire>> {
    const { owner, customerId, currency, limit, cursor } = request.data;
    const where = {
      platformId: request.context.platformId,
      isDeleted: false,
      ...ownerFilter(owner, customerId),
      ...(currency ? { currency } : {}),
    } as FilterQuery<ExternalAccountRow>;
    return findPage(this.eventSourcing.em, ExternalAccountEntity, where, { limit, ...(cursor ? { cursor } : {}) }, renderExternalAccount);
  }

  /** Replies an empty object: the gateway answers 204 with no body. */
  @MessagePattern(subjects.accounts.externalAccount.delete)
  async delete(@Payload() request: ServiceRequest<ExternalAccountIdData>): Promise<Record<string, never>> {
    const { context, data } = request;
    const now = this.clock.now();
    const command = { type: 'DeleteExternalAccount' as const, data: { ...data, platformId: context.platformId }, metadata: { now } };
    const { state } = await this.eventSourcing.handle(
      data.externalAccountId,
      externalAccountDecider,
      (account) => deleteExternalAccount(command, account),
      context,
    );
    if (state.kind !== 'Deleted') throw new Error(`Deleting ${data.externalAccountId} left it ${state.kind}.`);
    // The account is gone for clients already; these free what it held. A crash here leaves a
    // claim whose owner is deleted, which claimIdentity treats as free.
    await this.releaseIdentity(context, state.identityKey, data.externalAccountId);
    if (state.customerId !== null) {
      const clear = {
        type: 'ClearUmaDepositDefault' as const,
        data: { customerId: state.customerId, externalAccountId: data.externalAccountId },
        metadata: { now },
      };
      await this.changeDefault(state.customerId, context, (current) => clearUmaDepositDefault(clear, current));
    }
    return {};
  }

  private async changeDefault(
    customerId: string,
    context: RequestContext,
    decide: (current: UmaDepositDefault) => UmaDepositDefaultEvent[],
  ): Promise<void> {
    const streamId = umaDepositDefaultStreamId(customerId);
    await this.defaults.run(streamId, () => this.eventSourcing.handle(streamId, umaDepositDefaultDecider, decide, context));
  }

  private async read(context: RequestContext, owner: ExternalAccountOwnerKind, externalAccountId: string): Promise<ExternalAccountRow> {
    const where = {
      id: externalAccountId,
      platformId: context.platformId,
      isDeleted: false,
      ...ownerFilter(owner),
    } as FilterQuery<ExternalAccountRow>;
    const row = await this.eventSourcing.em.findOne(ExternalAccountEntity, where);
    if (!row) throw externalAccountNotFound(externalAccountId);
    return row;
  }

  private async claimIdentity(context: RequestContext, key: string, externalAccountId: string): Promise<void> {
    await claimUnique({
      conflictCode: 'CONFLICT',
      claim: (abandonedOwnerId) =>
        this.eventSourcing.handle(
          key,
          accountIdentityDecider,
          (identity) =>
            claimAccountIdentity(
              {
                type: 'ClaimAccountIdentity',
                data: { key, externalAccountId, ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
                metadata: {},
              },
              identity,
            ),
          context,
          { assumeNew: true },
        ),
      holderOf: async (refusal) => {
        const ownerId = refusal.details?.['existingExternalAccountId'];
        const claimed = (await this.eventSourcing.store.readStream(key)).events.at(-1);
        return typeof ownerId === 'string' && claimed ? { ownerId, claimedAt: claimed.metadata.occurredAt } : undefined;
      },
      // A claim's owner is gone when it was deleted (and the delete died before releasing), or when it never came to exist.
      holderState: async (ownerId) => {
        const { state: owner } = await this.eventSourcing.load(ownerId, externalAccountDecider);
        return owner.kind === 'None' ? 'missing' : owner.kind === 'Deleted' ? 'deleted' : 'exists';
      },
      now: () => this.clock.now(),
    });
  }

  private async releaseIdentity(context: RequestContext, key: string, externalAccountId: string): Promise<void> {
    await this.eventSourcing.handle(
      key,
      accountIdentityDecider,
      (identity) => releaseAccountIdentity(key, externalAccountId, identity),
      context,
    );
  }
}
