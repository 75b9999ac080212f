import { type Command, DomainError, type UpdateCustomerData, invalidInput } from '@corridor/contracts';
import { applyProfileChanges, type Customer, type CustomerEvent, type ExistingCustomer, type ProfileChanges } from './customer';
import { checkCurrencies, checkNoNulls, checkStatusWrite, checkTypeFields } from './create-customer';
import type { PlatformSettings } from './platform-settings';

export type UpdateCustomer = Command<
  'UpdateCustomer',
  { platformId: string; request: UpdateCustomerData; settings: PlatformSettings },
  { now: Date }
>;

/** Shared by update and delete: a customer of another platform is as absent as a missing one. */
export const requireLiveCustomer = (customer: Customer, customerId: string, platformId: string): ExistingCustomer => {
  if (customer.status === 'None' || customer.platformId !== platformId) {
    throw new DomainError('USER_NOT_FOUND', 'not_found', `Customer ${customerId} was not found.`);
  }
  if (customer.status === 'Deleted') {
    throw new DomainError('CUSTOMER_DELETED', 'gone', `Customer ${customerId} was deleted and can no longer be changed.`);
  }
  return customer;
};

export const updateCustomer = (command: UpdateCustomer, customer: Customer): CustomerEvent[] => {
  const { platformId, request, settings } = command.data;
  const existing = requireLiveCustomer(customer, request.customerId, platformId);
  checkNoNulls(request.patch as Record<string, unknown>);
  const { customerType, kycStatus, kybStatus, ...fields } = request.patch;
  if (customerType !== existing.customerType) {
    throw invalidInput(`customerType is ${existing.customerType} for this customer and cannot change to ${customerType}.`, {
      field: 'customerType',
    });
  }
  checkTypeFields(customerType, request.patch as Record<string, unknown>);
  const statedStatus = customerType === 'INDIVIDUAL' ? kycStatus : kybStatus;
  checkStatusWrite(statedStatus, settings, customerType === 'INDIVIDUAL' ? 'kycStatus' : 'kybStatus');
  if (fields.currencies) checkCurrencies(fields.currencies, settings);

  const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as ProfileChanges;
  const changedAt = command.metadata.now.toISOString();
  const events: CustomerEvent[] = [];
  const next = applyProfileChanges(existing.profile, changes);
  if (JSON.stringify(next) !== JSON.stringify(existing.profile)) {
    events.push({ type: 'CustomerUpdated', data: { customerId: existing.customerId, platformId, changes, updatedAt: changedAt } });
  }
  if (statedStatus !== undefined && statedStatus !== existing.verificationStatus) {
    events.push({
      type: 'CustomerVerificationStatusChanged',
      data: { customerId: existing.customerId, platformId, customerType, from: existing.verificationStatus, to: statedStatus, changedAt },
    });
  }
  return events;
};
