import {
  type Command,
  type CreateCustomerData,
  DomainError,
  idempotencyConflict,
  type KycStatus,
  invalidInput,
  requireSameRequest,
} from '@corridor/contracts';
import type { Customer, CustomerCreated, CustomerEvent } from './customer';
import { inferCurrencies, type PlatformSettings } from './platform-settings';

export type CreateCustomer = Command<
  'CreateCustomer',
  {
    customerId: string;
    platformId: string;
    request: CreateCustomerData;
    platformCustomerId: string;
    umaAddress: string;
    settings: PlatformSettings;
    requestFingerprint?: string;
  },
  { now: Date }
>;

export const checkCurrencies = (currencies: readonly string[], settings: PlatformSettings, field = 'currencies'): void => {
  const unsupported = currencies.filter((code) => !settings.supportedCurrencies.includes(code));
  if (unsupported.length > 0) {
    throw new DomainError(
      'INVALID_CURRENCY',
      'validation',
      `${unsupported.join(', ')} ${unsupported.length === 1 ? 'is' : 'are'} not among the platform's supported currencies ` +
        `(${settings.supportedCurrencies.join(', ')}). Add it with PATCH /config first.`,
      { field, unsupported },
    );
  }
};

export const checkTypeFields = (customerType: string, fields: Record<string, unknown>): void => {
  const foreign = customerType === 'INDIVIDUAL' ? ['businessInfo', 'kybStatus'] : ['fullName', 'birthDate', 'nationality', 'kycStatus'];
  const present = foreign.filter((name) => fields[name] !== undefined);
  if (present.length > 0) {
    throw invalidInput(`${present.join(', ')} cannot be set on a ${customerType} customer.`, { fields: present });
  }
};

/** Null is not a value here: a member is either given or left out (and then unchanged or generated). */
export const checkNoNulls = (fields: Record<string, unknown>): void => {
  const nulls = Object.keys(fields).filter((name) => fields[name] === null);
  if (nulls.length > 0) {
    throw invalidInput(`${nulls.join(', ')} cannot be null. Leave a member out to keep its value.`, { fields: nulls });
  }
};

/** A platform that runs its own KYC (a regulated institution) may state the outcome; others cannot. */
export const checkStatusWrite = (status: KycStatus | undefined, settings: PlatformSettings, field: string): void => {
  if (status !== undefined && !settings.isRegulatedFinancialInstitution) {
    throw invalidInput(`${field} is decided by verification. Submit the customer with POST /verifications instead of setting it.`, {
      field,
    });
  }
};

const initialStatus = (request: CreateCustomerData, settings: PlatformSettings): KycStatus => {
  const stated = request.customerType === 'INDIVIDUAL' ? request.kycStatus : request.kybStatus;
  if (settings.isRegulatedFinancialInstitution) return stated ?? 'APPROVED';
  // The sandbox simulates KYC as instant for individuals; businesses go through POST /verifications.
  if (settings.environment === 'SANDBOX' && request.customerType === 'INDIVIDUAL') return 'APPROVED';
  return 'UNVERIFIED';
};

export const createCustomer = (command: CreateCustomer, customer: Customer): CustomerEvent[] => {
  const { customerId, platformId, request, platformCustomerId, umaAddress, settings, requestFingerprint } = command.data;
  if (customer.status !== 'None') throw new DomainError('CONFLICT', 'conflict', `Customer ${customerId} already exists.`);
  checkNoNulls(request as Record<string, unknown>);
  checkTypeFields(request.customerType, request as Record<string, unknown>);
  checkStatusWrite(
    request.customerType === 'INDIVIDUAL' ? request.kycStatus : request.kybStatus,
    settings,
    request.customerType === 'INDIVIDUAL' ? 'kycStatus' : 'kybStatus',
  );
  const currencies = request.currencies ? [...new Set(request.currencies)] : inferCurrencies(request.region, settings);
  checkCurrencies(currencies, settings);

  const { kycStatus: _kyc, kybStatus: _kyb, customerType, platformCustomerId: _p, umaAddress: _u, currencies: _c, ...details } = request;
  const createdAt = command.metadata.now.toISOString();
  const verificationStatus = initialStatus(request, settings);
  const events: CustomerEvent[] = [
    {
      type: 'CustomerCreated',
      data: {
        customerId,
        platformId,
        customerType,
        profile: { ...details, platformCustomerId, umaAddress, currencies },
        verificationStatus,
        createdAt,
        ...(requestFingerprint !== undefined ? { requestFingerprint } : {}),
      },
    },
  ];
  if (verificationStatus !== 'UNVERIFIED') {
    events.push({
      type: 'CustomerVerificationStatusChanged',
      data: { customerId, platformId, customerType, from: null, to: verificationStatus, changedAt: createdAt },
    });
  }
  return events;
};

/**
 * A create retried under its Idempotency-Key finds the customer its first attempt made (decision
 * 0028): the same request is answered with that customer; another request under the key, another
 * platform's customer under the derived id, or a customer deleted since, is a 409.
 */
export const requireSameCreate = (
  created: CustomerCreated['data'],
  deleted: boolean,
  request: { platformId: string; requestFingerprint?: string | undefined },
): void => {
  if (created.platformId !== request.platformId || deleted) throw idempotencyConflict(created.customerId);
  requireSameRequest(created.requestFingerprint, request.requestFingerprint, created.customerId);
};
