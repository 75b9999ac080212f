import { Injectable } from '@nestjs/common';
import { type CustomerWire, DomainError, invalidInput, isIdOf, type RequestContext, subjects } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';

const CUSTOMER_LOOKUP_TIMEOUT_MS = 5_000;

/**
 * Answers "may this platform attach an account to this customer?" by asking the customers service.
 * A local copy fed by CustomerCreated events was the alternative, but it lags: a platform that
 * creates a customer and adds its bank account in the next request would be refused at random.
 * The customers service reads its own writes, so asking it is always current; it costs one NATS
 * hop per create, and creates are rare next to payments.
 */
@Injectable()
export class CustomerDirectory {
  constructor(private readonly client: ServiceClient) {}

  /**
   * Unknown, deleted and another platform's customers are all refused with the same 400 (the
   * reference declares no 404 for this create), so the answer never reveals another tenant's ids.
   */
  async assertUsable(context: RequestContext, customerId: string): Promise<void> {
    const refused = invalidInput(
      `customerId ${customerId} does not name a customer of this platform. Create the customer first, or check the id.`,
      {
        field: 'customerId',
      },
    );
    if (!isIdOf('Customer', customerId)) throw refused;
    let customer: CustomerWire;
    try {
      customer = await this.client.request<CustomerWire>(
        subjects.customers.customer.get,
        { customerId },
        { context, timeoutMs: CUSTOMER_LOOKUP_TIMEOUT_MS },
      );
    } catch (error) {
      if (error instanceof DomainError && error.status === 404) throw refused;
      throw error;
    }
    if (customer.isDeleted) {
      throw invalidInput(`customerId ${customerId} names a deleted customer; a deleted customer cannot get new external accounts.`, {
        field: 'customerId',
      });
    }
  }
}
