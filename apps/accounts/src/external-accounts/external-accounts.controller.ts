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
import { accountIdentityDecider, claimAccountIdentity, releaseAccountIdentity } from './account-identity';
import { type CreateExternalAccount, createExternalAccount } from './create-external-account';
import { CustomerDirectory } from './customer-directory';
import { deleteExternalAccount } from './delete-external-account';
import {
  decideInSequence,
  evolveExternalAccount,
  externalAccountDecider,
  externalAccountNotFound,
  type ExternalAccountCreated,
  type ExternalAccountEvent,
  initialExternalAccount,
} from './external-account';
import { ExternalAccountEntity, type ExternalAccountRow, renderExternalAccount } from './external-account-view.projection';
import { PerKeyQueue } from './per-key-queue';
import { sandboxOnboarding, sandboxVerificationOf } from './sandbox-onboarding';
import {
  assignUmaDepositDefault,
  clearUmaDepositDefault,
  type UmaDepositDefault,
  umaDepositDefaultDecider,
  type UmaDepositDefaultEvent,
  umaDepositDefaultStreamId,
} from './uma-deposit-default';

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
   * Validate → check the customer → claim the identity (409 on a duplicate) → append the account,
   * with the sandbox's verification and activation in the same append → make it the default.
   * Every refusal comes before the first write, so a refused create leaves nothing behind.
   */
  @MessagePattern(subjects.accounts.externalAccount.create)
  async create(@Payload() request: ServiceRequest<CreateExternalAccountData>): Promise<ExternalAccountWire> {
    const { context, data } = request;
    const customerId = data.owner === 'CUSTOMER' ? (data.customerId ?? null) : null;
    if (data.owner === 'CUSTOMER' && customerId === null)
      throw invalidInput('customerId is required for a customer’s external account.', { field: 'customerId' });
    const now = this.clock.now();
    const externalAccountId = idForRequest(
      'ExternalAccount',
      idempotencyScopeOf(context),
      'create-external-account',
      context.idempotencyKey,
    );
    const command: CreateExternalAccount = {
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
      metadata: { now },
    };
    // A retry of a create whose answer was lost (a 503 while a replica died): the account exists,
    // and the decider tells this request again (answered with it) from another one under the key (409).
    const earlier = context.idempotencyKey ? (await this.eventSourcing.store.readStream(externalAccountId)).events : [];
    if (earlier.length > 0) {
      createExternalAccount(
        command,
        (earlier as unknown as ExternalAccountEvent[]).reduce(evolveExternalAccount, initialExternalAccount()),
      );
      await this.eventSourcing.waitForReadModels(earlier);
      return renderExternalAccount(await this.read(context, data.owner, externalAccountId));
    }
    const [created] = createExternalAccount(command, initialExternalAccount()) as [ExternalAccountCreated];
    // Suffix 105 (an account the bank refuses) throws its 400 here, before anything is written.
    const onboarding =
      data.environment === 'SANDBOX'
        ? sandboxOnboarding(externalAccountId, context.platformId, sandboxVerificationOf(created.data.accountInfo), now)
        : [];
    if (customerId !== null) await this.customers.assertUsable(context, customerId);
    const { identityKey } = created.data;
    await this.claimIdentity(context, identityKey, externalAccountId);
    try {
      await this.eventSourcing.handle(
        externalAccountId,
        externalAccountDecider,
        // A twin under the same key that got there first leaves nothing to onboard: this request is
        // answered with its account, or refused.
        (state) =>
          state.kind === 'None'
            ? decideInSequence(state, [(current) => createExternalAccount(command, current), ...onboarding])
            : createExternalAccount(command, state),
        context,
        { assumeNew: true },
      );
    } catch (error) {
      // The identity is given back unless that twin's account holds it.
      const { events } = await this.eventSourcing.store.readStream(externalAccountId).catch(() => ({ events: [] }));
      const holder = (events as unknown as ExternalAccountEvent[]).reduce(evolveExternalAccount, initialExternalAccount());
      if (holder.kind === 'None' || holder.identityKey !== identityKey) await this.releaseIdentity(context, identityKey, externalAccountId);
      throw error;
    }
    if (customerId !== null && command.data.defaultUmaDepositAccount) {
      const assign = { type: 'AssignUmaDepositDefault' as const, data: { customerId, externalAccountId }, metadata: { now } };
      await this.changeDefault(customerId, context, (current) => assignUmaDepositDefault(assign, current));
    }
    return renderExternalAccount(await this.read(context, data.owner, externalAccountId));
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
