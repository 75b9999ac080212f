import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { FilterQuery } from '@mikro-orm/core';
import {
  CLOCK,
  type Clock,
  type CreateCustomerData,
  type CustomerIdData,
  type CustomerWire,
  DomainError,
  type ListCustomersData,
  type OpenCustomerAccountsData,
  type OpenCustomerAccountsReply,
  type Page,
  type RenderCustomerAtData,
  type RequestContext,
  type ServiceRequest,
  subjects,
  type UpdateCustomerData,
  idForRequest,
  idempotencyScopeOf,
  claimUnique,
  claimUniqueValue,
  releaseUniqueValue,
  uniqueValueDecider,
} from '@corridor/contracts';
import {
  asOfTime,
  EventSourcing,
  findPage,
  isWrongExpectedVersionError,
  type RecordedEvent,
  timeRange,
  uniqueValueHolder,
} from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { randomBytes } from 'node:crypto';
import { createCustomer, requireSameCreate } from './create-customer';
import { withCustomerAfterEach } from './published-customer';
import { renderCustomerAsOf, renderCustomerAt } from './customer-at';
import { type Customer, type CustomerCreated, type CustomerEvent, customerDecider } from './customer';
import {
  CUSTOMER_BY_ID,
  CustomerEntity,
  type CustomerRow,
  type CustomerRowColumns,
  evolveCustomerView,
  fromColumns,
  renderCustomer,
} from './customer-view.projection';
import { deleteCustomer } from './delete-customer';
import type { PlatformSettings } from './platform-settings';
import { PlatformSettingsCache } from './platform-settings.cache';
import { updateCustomer } from './update-customer';

const notFound = (customerId: string) => new DomainError('USER_NOT_FOUND', 'not_found', `Customer ${customerId} was not found.`);

/** Inside the gateway's 5 s request timeout, so a slow accounts service is a 503 of ours, not a gateway timeout. */
const OPEN_ACCOUNTS_TIMEOUT_MS = 4_000;

export const umaKey = (umaAddress: string) => `UmaAddress:${umaAddress.toLowerCase()}`;
export const platformCustomerIdKey = (platformId: string, platformCustomerId: string) =>
  `PlatformCustomerId:${platformId}:${platformCustomerId}`;

/** A unique value a create claims, and what a refusal of it answers. */
type ValueClaim = { key: string; conflictCode: string; conflictMessage: string };

@Controller()
export class CustomersController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly platformSettings: PlatformSettingsCache,
    private readonly client: ServiceClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.customers.customer.create)
  create(@Payload() request: ServiceRequest<CreateCustomerData>): Promise<CustomerWire> {
    return this.withSettings(request.context, (settings) => this.createWith(request, settings));
  }

  private async createWith(request: ServiceRequest<CreateCustomerData>, settings: PlatformSettings): Promise<CustomerWire> {
    const { context, data } = request;
    const customerId = idForRequest('Customer', idempotencyScopeOf(context), 'create-customer', context.idempotencyKey);
    // A retry of a create whose answer was lost (a 503 while a replica died): the customer exists.
    const earlier = context.idempotencyKey ? await this.createdEarlier(customerId, context, settings) : undefined;
    if (earlier) return earlier;
    const platformCustomerId = data.platformCustomerId ?? randomBytes(8).toString('hex');
    const umaAddress = data.umaAddress ?? `$${platformCustomerId.toLowerCase().replace(/[^a-z0-9._-]/g, '')}@${settings.umaDomain}`;
    const fingerprint =
      context.idempotencyKey !== undefined && context.requestFingerprint !== undefined
        ? { requestFingerprint: context.requestFingerprint }
        : {};
    const command = {
      type: 'CreateCustomer' as const,
      data: { customerId, platformId: context.platformId, request: data, platformCustomerId, umaAddress, settings, ...fingerprint },
      metadata: { now: this.clock.now() },
    };
    // Decide once before claiming, so invalid input never reserves an address or id.
    const decided = createCustomer(command, customerDecider.initialState());
    const claims: ValueClaim[] = [
      {
        key: platformCustomerIdKey(context.platformId, platformCustomerId),
        conflictCode: 'CONFLICT',
        conflictMessage: `platformCustomerId ${platformCustomerId} is already used by another customer of this platform.`,
      },
      {
        key: umaKey(umaAddress),
        conflictCode: 'UMA_ADDRESS_EXISTS',
        conflictMessage: `The UMA address ${umaAddress} is already taken. Choose another or omit umaAddress to get a generated one.`,
      },
    ];
    const events =
      (await this.createAtOnce(context, customerId, claims, decided)) ??
      (await this.claimThenCreate(context, customerId, claims, (customer) => createCustomer(command, customer)));
    // The row the projection wrote from these same events, folded here by its own pure evolve:
    // identical to what a GET returns, without reading it back.
    const row = events.reduce(evolveCustomerView, null);
    const created = events.find((event) => event.type === 'CustomerCreated') as unknown as CustomerCreated | undefined;
    if (!row || !created) throw new Error(`Creating ${customerId} recorded no CustomerCreated event.`);
    await this.openAccounts(context, created.data, settings);
    return renderCustomer(row);
  }

  /**
   * Read-your-writes across services (decision 0027): the 201 goes out only once the accounts
   * service shows the customer's internal accounts (and its Embedded Wallet where the platform
   * enables them), so the platform can fund or pay the customer the moment it has its id. The
   * policies behind CustomerCreated still run; they find everything opened and decide nothing.
   */
  private async openAccounts(context: RequestContext, created: CustomerCreated['data'], settings: PlatformSettings): Promise<void> {
    const { customerId, profile } = created;
    const data: OpenCustomerAccountsData = {
      customerId,
      currencies: profile.currencies,
      ...(profile.email !== undefined ? { email: profile.email } : {}),
      embeddedWallets: settings.embeddedWallets,
    };
    try {
      const options = { context, timeoutMs: OPEN_ACCOUNTS_TIMEOUT_MS };
      await this.client.request<OpenCustomerAccountsReply>(subjects.accounts.internalAccount.openForCustomer, data, options);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status !== 503) throw error;
      // The customer exists; its accounts follow from CustomerCreated. A retry under the same
      // Idempotency-Key finds the customer and waits for them again.
      throw new DomainError(
        'SERVICE_UNAVAILABLE',
        'unavailable',
        `Customer ${customerId} was created, but its internal accounts could not be confirmed open in time. ` +
          'Send the request again with the same Idempotency-Key, or GET the customer.',
        { customerId },
      );
    }
  }

  @MessagePattern(subjects.customers.customer.get)
  get(@Payload() request: ServiceRequest<CustomerIdData>): Promise<CustomerWire> {
    const { customerId, asOf } = request.data;
    if (asOf !== undefined) return this.readAsOf(request.context, customerId, asOfTime(asOf));
    return this.read(request.context, customerId);
  }

  /** The customer as it stood at `at` (decision 0039), folded from its (short) stream; before its creation or another platform's: 404. */
  private async readAsOf(context: RequestContext, customerId: string, at: Date): Promise<CustomerWire> {
    const { events } = await this.eventSourcing.store.readStream(customerId);
    const customer = renderCustomerAsOf(events, at, context.platformId);
    if (!customer) throw notFound(customerId);
    return customer;
  }

  /** The webhooks service renders a customer as it was right after the event it announces. */
  @MessagePattern(subjects.customers.customer.renderAt)
  async renderAt(@Payload() request: ServiceRequest<RenderCustomerAtData>): Promise<CustomerWire> {
    const { customerId, streamPosition } = request.data;
    // A customer's stream is short (its status and profile changes), so reading it whole is cheap.
    const { events } = await this.eventSourcing.store.readStream(customerId);
    const customer = renderCustomerAt(events, streamPosition, request.context.platformId);
    if (!customer) throw notFound(customerId);
    return customer;
  }

  @MessagePattern(subjects.customers.customer.list)
  list(@Payload() request: ServiceRequest<ListCustomersData>): Promise<Page<CustomerWire>> {
    const {
      platformCustomerId,
      customerType,
      createdAfter,
      createdBefore,
      updatedAfter,
      updatedBefore,
      region,
      currency,
      umaAddress,
      isIncludingDeleted,
      limit,
      cursor,
    } = request.data;
    const where: FilterQuery<CustomerRow> = {
      platformId: request.context.platformId,
      ...(isIncludingDeleted ? {} : { isDeleted: false }),
      ...(platformCustomerId ? { platformCustomerId } : {}),
      ...(customerType ? { customerType } : {}),
      ...(region ? { region } : {}),
      ...(currency ? { currencies: { $contains: [currency] } } : {}),
      ...(umaAddress ? { umaAddress } : {}),
      ...timeRange('createdAt', createdAfter, createdBefore),
      ...timeRange('updatedAt', updatedAfter, updatedBefore),
    } as FilterQuery<CustomerRow>;
    return findPage(this.eventSourcing.em, CustomerEntity, where, { limit, ...(cursor ? { cursor } : {}) }, renderCustomer);
  }

  @MessagePattern(subjects.customers.customer.update)
  update(@Payload() request: ServiceRequest<UpdateCustomerData>): Promise<CustomerWire> {
    return this.withSettings(request.context, (settings) => this.updateWith(request, settings));
  }

  private async updateWith(request: ServiceRequest<UpdateCustomerData>, settings: PlatformSettings): Promise<CustomerWire> {
    const { context, data } = request;
    const command = {
      type: 'UpdateCustomer' as const,
      data: { platformId: context.platformId, request: data, settings },
      metadata: { now: this.clock.now() },
    };
    const current = await this.eventSourcing.em.findOne(CustomerEntity, { id: data.customerId, platformId: context.platformId });
    const newAddress = data.patch.umaAddress && current && data.patch.umaAddress !== current.umaAddress ? data.patch.umaAddress : undefined;
    if (newAddress) {
      await this.claim(
        context,
        umaKey(newAddress),
        data.customerId,
        'UMA_ADDRESS_EXISTS',
        `The UMA address ${newAddress} is already taken.`,
      );
    }
    await this.eventSourcing.handle(data.customerId, customerDecider, (customer) => updateCustomer(command, customer), context);
    if (newAddress && current) await this.release(context, umaKey(current.umaAddress), data.customerId);
    return this.read(context, data.customerId);
  }

  @MessagePattern(subjects.customers.customer.delete)
  async delete(@Payload() request: ServiceRequest<CustomerIdData>): Promise<CustomerWire> {
    const { context, data } = request;
    const command = {
      type: 'DeleteCustomer' as const,
      data: { customerId: data.customerId, platformId: context.platformId },
      metadata: { now: this.clock.now() },
    };
    const { state } = await this.eventSourcing.handle(
      data.customerId,
      customerDecider,
      (customer) => deleteCustomer(command, customer),
      context,
    );
    // The platformCustomerId becomes free for a new customer; the UMA address stays reserved so
    // payments addressed to a deleted customer can never reach someone else.
    if (state.status !== 'None')
      await this.release(context, platformCustomerIdKey(context.platformId, state.profile.platformCustomerId), data.customerId);
    return this.read(context, data.customerId);
  }

  /**
   * Runs a write with the platform's settings. Settings are cached; a write the cached settings
   * refuse (say, a currency the platform added a moment ago) is decided once more on fresh ones.
   * Refusals happen before anything is appended, so running the write again is safe.
   */
  private async withSettings<T>(context: RequestContext, write: (settings: PlatformSettings) => Promise<T>): Promise<T> {
    const cached = await this.platformSettings.get(context);
    try {
      return await write(cached);
    } catch (error) {
      if (!(error instanceof DomainError) || error.status !== 400) throw error;
      const fresh = await this.platformSettings.get(context, { fresh: true });
      if (JSON.stringify(fresh) === JSON.stringify(cached)) throw error;
      return write(fresh);
    }
  }

  private async read(context: RequestContext, customerId: string): Promise<CustomerWire> {
    const [row] = await this.eventSourcing.read<CustomerRowColumns>('customer-by-id', CUSTOMER_BY_ID, [customerId, context.platformId]);
    if (!row) throw notFound(customerId);
    return renderCustomer(fromColumns(row));
  }

  /**
   * The customer a retry under the same Idempotency-Key already made, as it is now, once its
   * accounts are open (a first attempt answered 503 may have left them to the policy); a different
   * request under the key is a 409 (decision 0028).
   */
  private async createdEarlier(customerId: string, context: RequestContext, settings: PlatformSettings): Promise<CustomerWire | undefined> {
    const { events } = await this.eventSourcing.store.readStream(customerId);
    const created = events.find((event) => event.type === 'CustomerCreated') as unknown as CustomerCreated | undefined;
    if (!created) return undefined;
    const row = events.reduce(evolveCustomerView, null);
    requireSameCreate(created.data, row?.isDeleted ?? false, context);
    await this.eventSourcing.waitForReadModels(events);
    await this.openAccounts(context, created.data, settings);
    return row ? renderCustomer(row) : undefined;
  }

  /**
   * The usual create: both values free and the customer new, so both claims and the customer go
   * to the store as one all-or-nothing append, one commit (decision 0053). Undefined when a stream
   * was not new; nothing was written then, and claimThenCreate decides stream by stream.
   */
  private async createAtOnce(
    context: RequestContext,
    customerId: string,
    claims: readonly ValueClaim[],
    decided: readonly CustomerEvent[],
  ): Promise<RecordedEvent[] | undefined> {
    const claimed = ({ key, conflictCode, conflictMessage }: ValueClaim) =>
      claimUniqueValue(
        { type: 'ClaimUniqueValue', data: { key, ownerId: customerId, conflictCode, conflictMessage }, metadata: {} },
        uniqueValueDecider.initialState(),
      );
    try {
      const appended = await this.eventSourcing.appendAtomically(
        [
          ...claims.map((claim) => ({ streamId: claim.key, events: claimed(claim), expectedVersion: 0 })),
          { streamId: customerId, events: withCustomerAfterEach(decided), expectedVersion: 0 },
        ],
        context,
      );
      return appended[appended.length - 1]!.events;
    } catch (error) {
      if (!isWrongExpectedVersionError(error)) throw error;
      // Not silent: a value taken, released or abandoned, or a racing retry's customer, is answered
      // by the one-stream-at-a-time path, with its recovery and its errors, exactly as before.
      return undefined;
    }
  }

  /**
   * A create that met an existing stream: each value claimed on its own (claimUnique recovers an
   * abandoned claim), then the customer; a refused value gives back the other and answers its conflict.
   */
  private async claimThenCreate(
    context: RequestContext,
    customerId: string,
    claims: readonly ValueClaim[],
    decide: (customer: Customer) => CustomerEvent[],
  ): Promise<RecordedEvent[]> {
    const outcomes = await Promise.allSettled(
      claims.map(({ key, conflictCode, conflictMessage }) => this.claim(context, key, customerId, conflictCode, conflictMessage)),
    );
    const refused = outcomes.find((claim): claim is PromiseRejectedResult => claim.status === 'rejected');
    if (refused) {
      // Give back whichever value this create did get, so a refused create reserves nothing.
      await Promise.all(claims.map(({ key }) => this.release(context, key, customerId)));
      throw refused.reason;
    }
    const { events } = await this.eventSourcing.handle(customerId, customerDecider, decide, context, { assumeNew: true });
    return events;
  }

  private async claim(context: RequestContext, key: string, ownerId: string, conflictCode: string, conflictMessage: string): Promise<void> {
    await claimUnique({
      conflictCode,
      claim: (abandonedOwnerId) =>
        this.eventSourcing.handle(
          key,
          uniqueValueDecider,
          (value) =>
            claimUniqueValue(
              {
                type: 'ClaimUniqueValue',
                data: { key, ownerId, conflictCode, conflictMessage, ...(abandonedOwnerId ? { abandonedOwnerId } : {}) },
                metadata: {},
              },
              value,
            ),
          context,
          { assumeNew: true },
        ),
      // The owner may be a create that died between its claim and its first event.
      holderOf: () => uniqueValueHolder(this.eventSourcing.store, key),
      holderState: async (holderId) => ((await this.eventSourcing.store.readStream(holderId)).version > 0 ? 'exists' : 'missing'),
      now: () => this.clock.now(),
    });
  }

  private async release(context: RequestContext, key: string, ownerId: string): Promise<void> {
    await this.eventSourcing.handle(key, uniqueValueDecider, (value) => releaseUniqueValue(key, ownerId, value), context);
  }
}
