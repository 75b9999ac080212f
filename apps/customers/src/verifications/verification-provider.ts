import type { BeneficialOwnerPersonalInfoWire, KycStatus, PlatformEnvironment } from '@corridor/contracts';
import type { ExistingCustomer } from '../customers/customer';
import type { DecidedStatus } from './verification';

/**
 * The port to whoever decides KYC/KYB. `verify` gets a customer with nothing missing and answers
 * its outcome, or IN_PROGRESS when the decision will come later. `screenPerson` is the automatic KYC
 * of a beneficial owner.
 */
export type VerificationProvider = {
  verify(customer: ExistingCustomer): Promise<DecidedStatus | 'IN_PROGRESS'>;
  screenPerson(personalInfo: BeneficialOwnerPersonalInfoWire): Promise<KycStatus>;
};

/** Sandbox magic values (reference conventions): the last three characters pick the outcome. */
const bySuffix = <T>(value: string | undefined, outcomes: { '001': T; '002': T; otherwise: T }): T => {
  const suffix = (value ?? '').slice(-3);
  return suffix === '001' ? outcomes['001'] : suffix === '002' ? outcomes['002'] : outcomes.otherwise;
};

/**
 * The sandbox decides at once: a business by the last three digits of its registration number
 * (001 manual review, so kybStatus PENDING; 002 rejected), an owner by the last three characters of
 * their last name (001 PENDING, 002 REJECTED); everything else, individuals included, is approved,
 * as the reference's sandbox completes KYC instantly.
 */
export const sandboxVerificationProvider: VerificationProvider = {
  verify: async (customer) =>
    customer.customerType === 'BUSINESS'
      ? bySuffix<DecidedStatus>(customer.profile.businessInfo?.registrationNumber, {
          '001': 'PENDING_MANUAL_REVIEW',
          '002': 'REJECTED',
          otherwise: 'APPROVED',
        })
      : 'APPROVED',
  screenPerson: async (personalInfo) =>
    bySuffix<KycStatus>(personalInfo.lastName, { '001': 'PENDING', '002': 'REJECTED', otherwise: 'APPROVED' }),
};

/**
 * Production has no automated KYC vendor wired in yet: every complete submission, and every new
 * owner, waits for a person to review it. An adapter for a vendor replaces this one per deployment.
 */
export const manualReviewProvider: VerificationProvider = {
  verify: async () => 'PENDING_MANUAL_REVIEW',
  screenPerson: async () => 'PENDING',
};

export const VERIFICATION_PROVIDERS = 'VERIFICATION_PROVIDERS';
export type VerificationProviders = Readonly<Record<PlatformEnvironment, VerificationProvider>>;
export const defaultVerificationProviders: VerificationProviders = {
  SANDBOX: sandboxVerificationProvider,
  PRODUCTION: manualReviewProvider,
};
