import { Injectable } from '@nestjs/common';
import { type CustomerWire, DomainError, type InternalAccountWire, isIdOf, type RequestContext, subjects } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { FundingSourceFacts } from './funding-sources';

const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The cardholder and the funding accounts of a card, asked of the services that own them (always
 * current) with the caller's platform, so another platform's customer or account is simply not
 * found. Only facts are gathered here; what they allow is decided in the deciders.
 */
@Injectable()
export class CardParties {
  constructor(private readonly client: ServiceClient) {}

  /** The cardholder: a customer of this platform, not deleted; 404 otherwise (the customers service's USER_NOT_FOUND). */
  async cardholder(context: RequestContext, cardholderId: string): Promise<CustomerWire> {
    const notFound = () =>
      new DomainError(
        'USER_NOT_FOUND',
        'not_found',
        `Cardholder ${String(cardholderId).slice(0, 80)} is not a customer of this platform.`,
        { field: 'cardholderId' },
      );
    if (!isIdOf('Customer', cardholderId)) throw notFound();
    const customer = await this.client
      .request<CustomerWire>(subjects.customers.customer.get, { customerId: cardholderId }, { context, timeoutMs: LOOKUP_TIMEOUT_MS })
      .catch((error: unknown) => {
        if (error instanceof DomainError && error.status === 404) throw notFound();
        throw error;
      });
    if (customer.isDeleted) throw notFound();
    return customer;
  }

  /** One fact per distinct requested id, asked at once; an id that is no internal account of this platform is found: false. */
  async fundingSources(context: RequestContext, accountIds: readonly string[]): Promise<FundingSourceFacts[]> {
    return Promise.all([...new Set(accountIds)].map((accountId) => this.fundingSource(context, accountId)));
  }

  private async fundingSource(context: RequestContext, accountId: string): Promise<FundingSourceFacts> {
    if (!isIdOf('InternalAccount', accountId)) return { accountId, found: false };
    try {
      const account = await this.client.request<InternalAccountWire>(
        subjects.accounts.internalAccount.get,
        { accountId },
        { context, timeoutMs: LOOKUP_TIMEOUT_MS },
      );
      return {
        accountId,
        found: true,
        ...(account.customerId !== undefined ? { customerId: account.customerId } : {}),
        status: account.status,
        currency: account.balance.currency.code,
      };
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) return { accountId, found: false };
      throw error;
    }
  }
}
