// Pins down what must be on file before a customer can be verified: the fields of an individual,
// and for a business its fields, owners (control person, UBO role, identification) and documents.
import type { DocumentOnFile } from './verification-requirements';
import { ageInYears, verificationErrors } from './verification-requirements';
import { customerDecider, type CustomerEvent, type ExistingCustomer } from '../customers/customer';
import { customerId, individualCreated } from '../customers/customer.fixtures';
import { businessCreated, ownerAdded, ownerId, secondOwnerId } from '../beneficial-owners/beneficial-owner.fixtures';

const now = new Date('2026-03-02T00:00:00.000Z');
const customerOf = (...events: CustomerEvent[]): ExistingCustomer => {
  const state = events.reduce(customerDecider.evolve, customerDecider.initialState());
  if (state.status === 'None') throw new Error('no customer');
  return state;
};
const companyDocuments: DocumentOnFile[] = [
  { documentHolder: customerId, documentType: 'CERTIFICATE_OF_INCORPORATION' },
  { documentHolder: customerId, documentType: 'SHAREHOLDER_REGISTER' },
  { documentHolder: customerId, documentType: 'UTILITY_BILL' },
];
const completeBusiness = () =>
  businessCreated({ countriesOfOperation: ['US'] }, { address: { line1: '1 Market St', postalCode: '94105', country: 'US' } });
const fieldsOf = (errors: { field?: string; type: string }[]) => errors.map((error) => error.field ?? error.type);

describe('what an individual needs', () => {
  it('names every missing field as a dot path on the customer', () => {
    const errors = verificationErrors(customerOf(individualCreated()), now, []);
    expect(errors.every((error) => error.resourceId === customerId && error.type === 'MISSING_FIELD')).toBe(true);
    expect(fieldsOf(errors)).toEqual([
      'customer.birthDate',
      'customer.nationality',
      'customer.address.line1',
      'customer.address.postalCode',
      'customer.address.country',
    ]);
  });

  it('needs nothing more once name, birth date, nationality and address are on file (no document for KYC)', () => {
    const complete = customerOf(individualCreated(), {
      type: 'CustomerUpdated',
      data: {
        customerId,
        platformId: '',
        changes: { birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', postalCode: '62701', country: 'US' } },
        updatedAt: now.toISOString(),
      },
    });
    expect(verificationErrors(complete, now, [])).toEqual([]);
  });

  it('refuses a minor as INVALID_FIELD, turning 18 on the birthday itself', () => {
    const withBirthDate = (birthDate: string) =>
      customerOf(individualCreated(), {
        type: 'CustomerUpdated',
        data: {
          customerId,
          platformId: '',
          changes: { birthDate, nationality: 'US', address: { line1: 'x', postalCode: '1', country: 'US' } },
          updatedAt: now.toISOString(),
        },
      });
    expect(verificationErrors(withBirthDate('2008-03-03'), now, [])).toEqual([
      expect.objectContaining({ type: 'INVALID_FIELD', field: 'customer.birthDate' }),
    ]);
    expect(verificationErrors(withBirthDate('2008-03-02'), now, [])).toEqual([]);
    expect(ageInYears('2008-03-02', now)).toBe(18);
  });
});

describe('what a business needs', () => {
  it('without owners or documents: names the missing fields, the owners and each document with what is accepted', () => {
    const errors = verificationErrors(customerOf(businessCreated()), now, []);
    expect(fieldsOf(errors)).toEqual([
      'customer.businessInfo.countriesOfOperation',
      'customer.address.line1',
      'customer.address.postalCode',
      'customer.address.country',
      'MISSING_BENEFICIAL_OWNER',
      'MISSING_LEGAL_PRESENCE_DOCUMENT',
      'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
      'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);
    expect(errors.find((error) => error.type === 'MISSING_PROOF_OF_ADDRESS_DOCUMENT')).toMatchObject({
      resourceId: customerId,
      acceptedDocumentTypes: ['UTILITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'TAX_RETURN'],
    });
  });

  it('asks for the tax id and incorporation date a CSV-imported business may lack', () => {
    const imported = customerOf(
      businessCreated(
        { taxId: undefined, incorporatedOn: undefined, countriesOfOperation: ['US'] },
        { address: { line1: '1 Market St', postalCode: '94105', country: 'US' } },
      ),
      ownerAdded(),
    );
    const errors = verificationErrors(imported, now, companyDocuments);
    expect(errors).toEqual([
      expect.objectContaining({ type: 'MISSING_FIELD', field: 'customer.businessInfo.taxId', resourceId: customerId }),
      expect.objectContaining({ type: 'MISSING_FIELD', field: 'customer.businessInfo.incorporatedOn', resourceId: customerId }),
    ]);
  });

  it('is complete with a US control person who is the UBO, and the three company documents', () => {
    expect(verificationErrors(customerOf(completeBusiness(), ownerAdded()), now, companyDocuments)).toEqual([]);
  });

  it('asks for a control person when no owner has a control role', () => {
    const errors = verificationErrors(customerOf(completeBusiness(), ownerAdded({ roles: ['UBO'] })), now, companyDocuments);
    expect(errors).toEqual([
      expect.objectContaining({ type: 'MISSING_BENEFICIAL_OWNER', reason: expect.stringContaining('control person') }),
    ]);
  });

  it('names owner problems on the owner: UBO role at 25%, US id type, a non-US identity document, a rejected screening', () => {
    const customer = customerOf(
      completeBusiness(),
      ownerAdded({ percentage: 25, roles: ['CONTROL_PERSON'], info: { idType: 'EIN' } }),
      ownerAdded({
        id: secondOwnerId,
        percentage: 10,
        roles: ['DIRECTOR'],
        kycStatus: 'REJECTED',
        info: { nationality: 'MX', idType: 'NON_US_TAX_ID' },
      }),
    );
    expect(verificationErrors(customer, now, companyDocuments)).toEqual([
      expect.objectContaining({ resourceId: ownerId, type: 'INVALID_FIELD', field: 'roles' }),
      expect.objectContaining({ resourceId: ownerId, type: 'INVALID_FIELD', field: 'personalInfo.idType' }),
      expect.objectContaining({
        resourceId: secondOwnerId,
        type: 'MISSING_IDENTITY_DOCUMENT',
        acceptedDocumentTypes: ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'],
      }),
      expect.objectContaining({ resourceId: secondOwnerId, type: 'APPLICANT_REJECTED' }),
    ]);
  });

  it('counts a document only for the holder it belongs to', () => {
    const misfiled = companyDocuments.map((document) => ({ ...document, documentHolder: ownerId }));
    expect(fieldsOf(verificationErrors(customerOf(completeBusiness(), ownerAdded()), now, misfiled))).toEqual([
      'MISSING_LEGAL_PRESENCE_DOCUMENT',
      'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
      'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);
  });
});
