import { Inject, Injectable } from '@nestjs/common';
import {
  CLOCK,
  type Clock,
  type CreateQuoteData,
  type CustomerWire,
  DomainError,
  type ExternalAccountWire,
  invalidInput,
  isIdOf,
  isSupportedCurrency,
  primaryIdentifier,
  type InternalAccountWire,
  type QuoteDestinationData,
  type QuoteSourceData,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { LookupEntity } from '../uma/lookup-view.projection';
import { checkAccountLookup, umaDestinationFromLookup, usableLookup } from '../uma/lookup-for-quote';
import type { ReceiverLookupRecord } from '../uma/receiver-lookup';
import type { ResolvedDestination, ResolvedSource } from './create-quote';
import { resolveUmaDestination } from './uma-destination';

const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Finds who pays and who is paid by asking the services that own them (accounts, customers). As
 * with the accounts service's CustomerDirectory, asking is always current where a local copy would
 * lag behind a create made a moment before. The reference declares no 404 for POST /quotes, so an
 * unknown, deleted or other platform's account or customer is one 400 naming the field; the
 * answer never tells another tenant's ids from ids that do not exist.
 */
@Injectable()
export class QuoteParties {
  constructor(
    private readonly client: ServiceClient,
    private readonly eventSourcing: EventSourcing,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The receiver lookup a quote cites (docs/decisions/0010-uma.md), checked; null when it cites none. */
  async citedLookup(context: RequestContext, request: Pick<CreateQuoteData, 'lookupId'>): Promise<ReceiverLookupRecord | null> {
    const { lookupId } = request;
    if (lookupId === undefined) return null;
    const row = isIdOf('Lookup', lookupId)
      ? await this.eventSourcing.em.findOne(LookupEntity, { id: lookupId, platformId: context.platformId })
      : null;
    return usableLookup(row?.record ?? null, { lookupId, platformId: context.platformId, now: this.clock.now() });
  }

  async source(context: RequestContext, source: QuoteSourceData): Promise<ResolvedSource> {
    return (await this.sourceAndPayer(context, source)).source;
  }

  /**
   * The source, and the profile of the customer who pays (the one the source names, already
   * fetched to resolve it), so the payer-field check asks the customers service nothing more.
   */
  async sourceAndPayer(context: RequestContext, source: QuoteSourceData): Promise<{ source: ResolvedSource; payer: CustomerWire | null }> {
    const resolved = await this.resolveSource(context, source);
    return { source: resolved.source, payer: resolved.customer };
  }

  private async resolveSource(
    context: RequestContext,
    source: QuoteSourceData,
  ): Promise<{ source: ResolvedSource; customer: CustomerWire | null }> {
    if (source.sourceType === 'REALTIME_FUNDING') {
      if (!isSupportedCurrency(source.currency))
        throw invalidInput(`source.currency ${JSON.stringify(source.currency)} is not a currency Corridor exchanges.`, {
          field: 'source.currency',
        });
      const customer = source.customerId === undefined ? null : await this.customer(context, source.customerId, 'source.customerId');
      return {
        source: {
          sourceType: 'REALTIME_FUNDING',
          currency: source.currency,
          customerId: customer?.id ?? null,
          platformCustomerId: customer?.platformCustomerId ?? null,
          ...(source.cryptoNetwork !== undefined ? { cryptoNetwork: source.cryptoNetwork } : {}),
        },
        customer,
      };
    }
    if (isIdOf('ExternalAccount', source.accountId)) {
      throw invalidInput('source.accountId must be an internal account: pulling funds from an external account arrives with transfers.', {
        field: 'source.accountId',
      });
    }
    const account = await this.lookup<InternalAccountWire>(
      context,
      subjects.accounts.internalAccount.get,
      { accountId: source.accountId },
      'source.accountId',
      `source.accountId ${source.accountId} is not an internal account of this platform.`,
    );
    if (account.status !== 'ACTIVE')
      throw invalidInput(`source.accountId ${account.id} is ${account.status}; only an ACTIVE account can send.`, {
        field: 'source.accountId',
      });
    if (account.customerId !== undefined && source.customerId !== undefined && source.customerId !== account.customerId) {
      throw invalidInput(`source.customerId must be the account's owner, ${account.customerId}, or be left out.`, {
        field: 'source.customerId',
      });
    }
    // A platform (FBO) account may send on behalf of a customer named in source.customerId.
    const customerId = account.customerId ?? source.customerId;
    const customer =
      customerId === undefined
        ? null
        : await this.customer(context, customerId, account.customerId ? 'source.accountId' : 'source.customerId');
    return {
      source: {
        sourceType: 'ACCOUNT',
        accountId: account.id,
        accountType: account.type,
        currency: account.balance.currency.code,
        customerId: customer?.id ?? null,
        platformCustomerId: customer?.platformCustomerId ?? null,
      },
      customer,
    };
  }

  /** lookup: the receiver lookup the quote cites (citedLookup), which the destination must match. */
  async destination(
    context: RequestContext,
    destination: QuoteDestinationData,
    lookup: ReceiverLookupRecord | null = null,
  ): Promise<ResolvedDestination> {
    if (destination.destinationType === 'UMA_ADDRESS') {
      if (lookup) {
        resolveUmaDestination(destination.umaAddress, undefined, { lookedUp: true });
        return { destinationType: 'UMA_ADDRESS', ...umaDestinationFromLookup(lookup, destination.umaAddress, destination.currency) };
      }
      return { destinationType: 'UMA_ADDRESS', ...resolveUmaDestination(destination.umaAddress, destination.currency) };
    }
    if (lookup && !isIdOf('ExternalAccount', destination.accountId)) {
      throw invalidInput('lookupId is for paying an UMA address or an external account; leave it out when paying an internal account.', {
        field: 'lookupId',
      });
    }
    const { accountId } = destination;
    const unknown = `destination.accountId ${accountId} is not an internal or external account of this platform.`;
    if (isIdOf('InternalAccount', accountId)) {
      const account = await this.lookup<InternalAccountWire>(
        context,
        subjects.accounts.internalAccount.get,
        { accountId },
        'destination.accountId',
        unknown,
      );
      if (account.status === 'CLOSED')
        throw invalidInput(`destination.accountId ${accountId} is CLOSED and cannot receive.`, { field: 'destination.accountId' });
      return { destinationType: 'ACCOUNT', accountId, currency: account.balance.currency.code };
    }
    if (!isIdOf('ExternalAccount', accountId))
      throw invalidInput(`${unknown} Account ids look like InternalAccount:<uuid> or ExternalAccount:<uuid>.`, {
        field: 'destination.accountId',
      });
    const account =
      (await this.lookup<ExternalAccountWire>(
        context,
        subjects.accounts.externalAccount.get,
        { owner: 'CUSTOMER', externalAccountId: accountId },
        'destination.accountId',
        unknown,
      ).catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'INVALID_INPUT') return null;
        throw error;
      })) ??
      (await this.lookup<ExternalAccountWire>(
        context,
        subjects.accounts.externalAccount.get,
        { owner: 'PLATFORM', externalAccountId: accountId },
        'destination.accountId',
        unknown,
      ));
    if (lookup) checkAccountLookup(lookup, accountId, account.currency);
    if (account.status === 'INACTIVE')
      throw invalidInput(`destination.accountId ${accountId} is INACTIVE and cannot receive.`, { field: 'destination.accountId' });
    const payoutIdentifier = primaryIdentifier(account.accountInfo);
    return { destinationType: 'ACCOUNT', accountId, currency: account.currency, ...(payoutIdentifier ? { payoutIdentifier } : {}) };
  }

  private async customer(context: RequestContext, customerId: string, field: string): Promise<CustomerWire> {
    const message = `${field} ${customerId} does not name a customer of this platform.`;
    if (!isIdOf('Customer', customerId)) throw invalidInput(message, { field });
    const customer = await this.lookup<CustomerWire>(context, subjects.customers.customer.get, { customerId }, field, message);
    if (customer.isDeleted) throw invalidInput(`${field} ${customerId} names a deleted customer, who cannot send payments.`, { field });
    return customer;
  }

  /** A 404 from the owning service becomes the caller's 400 naming the field. */
  private async lookup<Reply>(context: RequestContext, subject: string, data: unknown, field: string, message: string): Promise<Reply> {
    try {
      return await this.client.request<Reply>(subject, data, { context, timeoutMs: LOOKUP_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw invalidInput(message, { field });
      throw error;
    }
  }
}
