import { Injectable } from '@nestjs/common';
import {
  type CustomerWire,
  DomainError,
  type ExternalAccountWire,
  type InternalAccountWire,
  invalidInput,
  isIdOf,
  type RequestContext,
  subjects,
} from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';

const LOOKUP_TIMEOUT_MS = 5_000;

/** Who a transfer belongs to: the internal account's customer, or (a platform account) the platform itself, as for quotes (0006). */
export type TransferOwner = { customerId: string; platformCustomerId: string };

/**
 * The accounts of a transfer, looked up at the services that own them (always current). The
 * reference declares a 404 for the transfer routes ("Customer or account not found"), so an
 * unknown, deleted or other platform's account is a 404 naming the field; the answer never tells
 * another tenant's ids from ids that do not exist. A malformed id is a 400.
 */
@Injectable()
export class TransferParties {
  constructor(private readonly client: ServiceClient) {}

  async internalAccount(context: RequestContext, accountId: string, field: string): Promise<InternalAccountWire> {
    if (!isIdOf('InternalAccount', accountId))
      throw invalidInput(`${field} must be an internal account id, InternalAccount:<uuid>; got ${JSON.stringify(accountId)}.`, { field });
    return this.lookup<InternalAccountWire>(
      context,
      subjects.accounts.internalAccount.get,
      { accountId },
      field,
      `${field} ${accountId} is not an internal account of this platform.`,
    );
  }

  async externalAccount(context: RequestContext, accountId: string, field: string): Promise<ExternalAccountWire> {
    if (!isIdOf('ExternalAccount', accountId))
      throw invalidInput(`${field} must be an external account id, ExternalAccount:<uuid>; got ${JSON.stringify(accountId)}.`, { field });
    const message = `${field} ${accountId} is not an external account of this platform.`;
    const asCustomers = await this.lookup<ExternalAccountWire>(
      context,
      subjects.accounts.externalAccount.get,
      { owner: 'CUSTOMER', externalAccountId: accountId },
      field,
      message,
    ).catch((error: unknown) => {
      if (error instanceof DomainError && error.status === 404) return null;
      throw error;
    });
    return (
      asCustomers ??
      (await this.lookup<ExternalAccountWire>(
        context,
        subjects.accounts.externalAccount.get,
        { owner: 'PLATFORM', externalAccountId: accountId },
        field,
        message,
      ))
    );
  }

  async owner(context: RequestContext, account: InternalAccountWire): Promise<TransferOwner> {
    if (account.customerId === undefined) return { customerId: context.platformId, platformCustomerId: context.platformId };
    const customer = await this.lookup<CustomerWire>(
      context,
      subjects.customers.customer.get,
      { customerId: account.customerId },
      'accountId',
      `The owner of ${account.id} was not found.`,
    );
    return { customerId: customer.id, platformCustomerId: customer.platformCustomerId };
  }

  private async lookup<Reply>(context: RequestContext, subject: string, data: unknown, field: string, message: string): Promise<Reply> {
    try {
      return await this.client.request<Reply>(subject, data, { context, timeoutMs: LOOKUP_TIMEOUT_MS });
    } catch (error) {
      if (error instanceof DomainError && error.status === 404)
        throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', message, { field });
      if (error instanceof DomainError && error.code === 'INVALID_INPUT')
        throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', message, { field });
      throw error;
    }
  }
}
