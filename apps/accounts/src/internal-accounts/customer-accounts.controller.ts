import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { isIdOf, type OpenCustomerAccountsData, type OpenCustomerAccountsReply, type ServiceRequest, subjects } from '@corridor/contracts';
import { OpenWalletsPolicy } from '../embedded-wallets/open-wallets.policy';
import { OpenAccountsPolicy } from './open-accounts-when-customer-created.policy';

/**
 * The customers service asks here, after it recorded CustomerCreated and before it answers, for
 * what the policies behind that event would open later: so the 201 is only sent once the customer
 * can be listed, funded and paid (decision 0027). Both steps are the policies' own, idempotent.
 */
@Controller()
export class CustomerAccountsController {
  constructor(
    private readonly accounts: OpenAccountsPolicy,
    private readonly wallets: OpenWalletsPolicy,
  ) {}

  @MessagePattern(subjects.accounts.internalAccount.openForCustomer)
  async open(@Payload() request: ServiceRequest<OpenCustomerAccountsData>): Promise<OpenCustomerAccountsReply> {
    const { context, data } = request;
    // Only the customers service sends this, with a customer it has just recorded; anything else is a bug there.
    if (!isIdOf('Customer', data.customerId) || !Array.isArray(data.currencies) || context.platformId === '') {
      throw new RangeError(`open-for-customer needs a customer id, its currencies and a platform; got ${JSON.stringify(data)}.`);
    }
    const { platformId, requestId, correlationId } = context;
    const customerId = data.customerId;
    const [accountIds, walletId] = await Promise.all([
      this.accounts.openAccounts({ platformId, customerId, currencies: data.currencies, eventId: requestId, correlationId }, requestId),
      this.wallets.openForNewCustomer({ platformId, customerId, email: data.email ?? null }, data.embeddedWallets, requestId),
    ]);
    return { accountIds: walletId ? [...accountIds, walletId] : accountIds };
  }
}
