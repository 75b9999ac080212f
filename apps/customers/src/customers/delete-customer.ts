import type { Command } from '@corridor/contracts';
import type { Customer, CustomerEvent } from './customer';
import { requireLiveCustomer } from './update-customer';

export type DeleteCustomer = Command<'DeleteCustomer', { customerId: string; platformId: string }, { now: Date }>;

/** Soft delete: the stream and the row stay (isDeleted), so history and reconciliation keep working. */
export const deleteCustomer = (command: DeleteCustomer, customer: Customer): CustomerEvent[] => {
  const { customerId, platformId } = command.data;
  requireLiveCustomer(customer, customerId, platformId);
  return [{ type: 'CustomerDeleted', data: { customerId, platformId, deletedAt: command.metadata.now.toISOString() } }];
};
