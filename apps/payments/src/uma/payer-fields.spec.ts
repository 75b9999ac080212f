// Payer fields a receiving institution needs: per corridor, satisfied by the profile or by
// senderCustomerInfo, every missing one named at once, and senderCustomerInfo's own shape.
import type { CustomerWire, DomainError } from '@corridor/contracts';
import {
  checkPayerFields,
  checkSenderCustomerInfo,
  requiredPayerFields,
  sandboxRequiredPayerFields,
  withCorridorPayerFields,
} from './payer-fields';

const customer = (overrides: Partial<CustomerWire> = {}): CustomerWire => ({
  id: 'Customer:01950000-0000-7000-8000-000000000002',
  platformCustomerId: 'c-1',
  customerType: 'INDIVIDUAL',
  umaAddress: '$c1@example.com',
  fullName: 'Ada Lovelace',
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  isDeleted: false,
  ...overrides,
});

const errorOf = (run: () => void): DomainError => {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a refusal');
};

describe('sandboxRequiredPayerFields', () => {
  it('asks nothing within one currency, the name across currencies, and more on the strict corridors', () => {
    expect(sandboxRequiredPayerFields('USD', 'USD')).toEqual([]);
    expect(sandboxRequiredPayerFields('USD', 'EUR')).toEqual(['FULL_NAME']);
    expect(sandboxRequiredPayerFields('USD', 'INR')).toEqual(['FULL_NAME', 'BIRTH_DATE', 'NATIONALITY']);
  });
});

describe('checkPayerFields', () => {
  const strict = sandboxRequiredPayerFields('USD', 'INR');

  it('takes what the profile holds', () =>
    expect(() => checkPayerFields(strict, customer({ birthDate: '1990-01-01', nationality: 'GB' }), undefined)).not.toThrow());

  it('takes senderCustomerInfo for what the profile lacks', () =>
    expect(() => checkPayerFields(strict, customer(), { BIRTH_DATE: '1990-01-01', NATIONALITY: 'GB' })).not.toThrow());

  it('names every missing field at once with MISSING_MANDATORY_USER_INFO', () => {
    const error = errorOf(() => checkPayerFields(strict, customer(), { NATIONALITY: '  ' }));
    expect([error.code, error.status, error.details?.['missing']]).toEqual([
      'MISSING_MANDATORY_USER_INFO',
      400,
      ['BIRTH_DATE', 'NATIONALITY'],
    ]);
    expect(error.message).toContain('senderCustomerInfo.BIRTH_DATE');
  });

  it('takes a business’s legal name as its full name', () =>
    expect(() =>
      checkPayerFields(
        ['FULL_NAME'],
        customer({
          customerType: 'BUSINESS',
          fullName: undefined as unknown as string,
          businessInfo: { legalName: 'Acme', incorporatedOn: '2020-01-01', taxId: '1' },
        }),
        undefined,
      ),
    ).not.toThrow());
});

describe('checkSenderCustomerInfo', () => {
  it('refuses an unknown key or an empty value, naming it', () => {
    expect(errorOf(() => checkSenderCustomerInfo({ SHOE_SIZE: '42' })).details?.['field']).toBe('senderCustomerInfo.SHOE_SIZE');
    expect(errorOf(() => checkSenderCustomerInfo({ FULL_NAME: '' })).details?.['field']).toBe('senderCustomerInfo.FULL_NAME');
    expect(errorOf(() => checkSenderCustomerInfo({ BIRTH_DATE: 19900101 })).details?.['field']).toBe('senderCustomerInfo.BIRTH_DATE');
  });

  it('accepts reference field names with text, and an address object', () =>
    expect(() => checkSenderCustomerInfo({ FULL_NAME: 'Jane', POSTAL_ADDRESS: { line1: '1 Main St', country: 'US' } })).not.toThrow());
});

describe('a cited receiver lookup', () => {
  const receiverFields = [
    { name: 'FULL_NAME', mandatory: true },
    { name: 'COUNTRY_OF_RESIDENCE', mandatory: false },
  ];

  it('adds what the receiver made mandatory to the corridor’s fields, and nothing it left optional', () => {
    expect(requiredPayerFields(['FULL_NAME', 'BIRTH_DATE'], [{ name: 'EMAIL', mandatory: true }, ...receiverFields])).toEqual([
      'FULL_NAME',
      'BIRTH_DATE',
      'EMAIL',
    ]);
    expect(requiredPayerFields([], receiverFields)).toEqual(['FULL_NAME']);
  });

  it('asks a platform’s own payment (no profile) for the receiver’s mandatory fields in senderCustomerInfo', () => {
    const error = errorOf(() => checkPayerFields(requiredPayerFields([], receiverFields), null, { COUNTRY_OF_RESIDENCE: 'US' }));
    expect([error.code, error.details?.['missing']]).toEqual(['MISSING_MANDATORY_USER_INFO', ['FULL_NAME']]);
    expect(() => checkPayerFields(requiredPayerFields([], receiverFields), null, { FULL_NAME: 'Acme Treasury' })).not.toThrow();
  });

  it('reports the corridor’s fields as mandatory in the lookup, so the lookup states everything a quote checks', () => {
    expect(withCorridorPayerFields(receiverFields, ['PHP', 'USD'])).toEqual([
      { name: 'FULL_NAME', mandatory: true },
      { name: 'COUNTRY_OF_RESIDENCE', mandatory: false },
      { name: 'BIRTH_DATE', mandatory: true },
      { name: 'NATIONALITY', mandatory: true },
    ]);
    expect(withCorridorPayerFields([{ name: 'FULL_NAME', mandatory: false }], ['EUR'])).toEqual([{ name: 'FULL_NAME', mandatory: true }]);
  });
});
