// Pins down the sandbox's magic values (reference conventions) and what production does without
// an automated KYC vendor.
import type { CustomerEvent, ExistingCustomer } from '../customers/customer';
import { customerDecider } from '../customers/customer';
import { individualCreated } from '../customers/customer.fixtures';
import { businessCreated, personalInfo } from '../beneficial-owners/beneficial-owner.fixtures';
import { manualReviewProvider, sandboxVerificationProvider } from './verification-provider';

const customerOf = (event: CustomerEvent): ExistingCustomer =>
  customerDecider.evolve(customerDecider.initialState(), event) as ExistingCustomer;

describe('sandbox provider', () => {
  it.each([
    ['REG-2024-001', 'PENDING_MANUAL_REVIEW'],
    ['REG-2024-002', 'REJECTED'],
    ['REG-2024-003', 'APPROVED'],
  ])('decides a business with registration number %s as %s', async (registrationNumber, expected) => {
    await expect(sandboxVerificationProvider.verify(customerOf(businessCreated({ registrationNumber })))).resolves.toBe(expected);
  });

  it('approves a business without a registration number and any individual', async () => {
    await expect(sandboxVerificationProvider.verify(customerOf(businessCreated()))).resolves.toBe('APPROVED');
    await expect(sandboxVerificationProvider.verify(customerOf(individualCreated()))).resolves.toBe('APPROVED');
  });

  it.each([
    ['Smith001', 'PENDING'],
    ['Smith002', 'REJECTED'],
    ['Smith', 'APPROVED'],
  ])('screens an owner named %s as %s', async (lastName, expected) => {
    await expect(sandboxVerificationProvider.screenPerson(personalInfo({ lastName }))).resolves.toBe(expected);
  });
});

describe('production without a KYC vendor', () => {
  it('sends every complete customer and every new owner to manual review', async () => {
    await expect(manualReviewProvider.verify(customerOf(businessCreated({ registrationNumber: 'X-003' })))).resolves.toBe(
      'PENDING_MANUAL_REVIEW',
    );
    await expect(manualReviewProvider.screenPerson(personalInfo())).resolves.toBe('PENDING');
  });
});
