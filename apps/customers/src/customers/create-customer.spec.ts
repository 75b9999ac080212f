// Pins down what a new customer starts as: its currencies, its KYC/KYB status per environment,
// and the inputs that are refused before anything is recorded.
import { deciderSpec } from '@corridor/testing';
import { createCustomer, requireSameCreate } from './create-customer';
import { customerDecider } from './customer';
import { createCommand, createdAt, customerId, individualCreated, platformId, production, regulated } from './customer.fixtures';

const given = deciderSpec({ decide: createCustomer, ...customerDecider }).given;

describe('CreateCustomer', () => {
  it('approves an individual at once in the sandbox and infers currencies from the region', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', region: 'US', fullName: 'Alice Doe' }))
      .then([
        individualCreated(),
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'INDIVIDUAL', from: null, to: 'APPROVED', changedAt: createdAt },
        },
      ]));

  it('leaves a business UNVERIFIED and announces no status', () =>
    given([])
      .when(
        createCommand({ customerType: 'BUSINESS', businessInfo: { legalName: 'Acme', incorporatedOn: '2020-01-01', taxId: '12-3456789' } }),
      )
      .then([
        {
          type: 'CustomerCreated',
          data: {
            customerId,
            platformId,
            customerType: 'BUSINESS',
            profile: {
              platformCustomerId: 'pc-1',
              umaAddress: '$alice@acme.sandbox.uma.money',
              currencies: ['USD', 'EUR', 'MXN'],
              businessInfo: { legalName: 'Acme', incorporatedOn: '2020-01-01', taxId: '12-3456789' },
            },
            verificationStatus: 'UNVERIFIED',
            createdAt,
          },
        },
      ]));

  it('leaves an individual UNVERIFIED in production', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', currencies: ['EUR'] }, production))
      .then([
        {
          type: 'CustomerCreated',
          data: {
            customerId,
            platformId,
            customerType: 'INDIVIDUAL',
            profile: { platformCustomerId: 'pc-1', umaAddress: '$alice@acme.sandbox.uma.money', currencies: ['EUR'] },
            verificationStatus: 'UNVERIFIED',
            createdAt,
          },
        },
      ]));

  it('lets a regulated platform state the KYC outcome', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', kycStatus: 'PENDING', currencies: ['USD'] }, regulated))
      .then([
        {
          type: 'CustomerCreated',
          data: {
            customerId,
            platformId,
            customerType: 'INDIVIDUAL',
            profile: { platformCustomerId: 'pc-1', umaAddress: '$alice@acme.sandbox.uma.money', currencies: ['USD'] },
            verificationStatus: 'PENDING',
            createdAt,
          },
        },
        {
          type: 'CustomerVerificationStatusChanged',
          data: { customerId, platformId, customerType: 'INDIVIDUAL', from: null, to: 'PENDING', changedAt: createdAt },
        },
      ]));

  it('refuses kycStatus from a platform that is not a regulated institution', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', kycStatus: 'APPROVED' }))
      .thenThrows((error) => error.code === 'INVALID_INPUT' && error.details?.['field'] === 'kycStatus'));

  it('refuses a currency the platform does not support', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', currencies: ['USD', 'GBP'] }))
      .thenThrows((error) => error.code === 'INVALID_CURRENCY' && error.status === 400 && error.message.includes('GBP')));

  it('refuses business fields on an individual', () =>
    given([])
      .when(createCommand({ customerType: 'INDIVIDUAL', businessInfo: { legalName: 'x', incorporatedOn: '2020-01-01', taxId: '1' } }))
      .thenThrows((error) => error.code === 'INVALID_INPUT'));

  it('refuses to create a customer twice', () =>
    given([individualCreated()])
      .when(createCommand({ customerType: 'INDIVIDUAL' }))
      .thenThrows((error) => error.code === 'CONFLICT'));
});

describe('requireSameCreate (a create retried under its Idempotency-Key, decision 0028)', () => {
  const fingerprint = 'f'.repeat(64);
  const command = createCommand({ customerType: 'INDIVIDUAL', fullName: 'Alice' });
  const [created] = createCustomer(
    { ...command, data: { ...command.data, requestFingerprint: fingerprint } },
    customerDecider.initialState(),
  );
  const data = (created as Extract<typeof created, { type: 'CustomerCreated' }>).data;

  it('keeps the fingerprint in CustomerCreated', () => expect(data.requestFingerprint).toBe(fingerprint));
  it('lets the same request through', () =>
    expect(() => requireSameCreate(data, false, { platformId, requestFingerprint: fingerprint })).not.toThrow());
  it.each([
    ['another request under the key', { platformId, requestFingerprint: 'e'.repeat(64) }, false],
    ['another platform', { platformId: 'Platform:other', requestFingerprint: fingerprint }, false],
    ['a customer deleted since', { platformId, requestFingerprint: fingerprint }, true],
  ])('refuses %s with a 409 naming the key', (_case, request, deleted) => {
    expect(() => requireSameCreate(data, deleted, request)).toThrow(
      expect.objectContaining({ status: 409, details: { field: 'Idempotency-Key', resourceId: customerId } }) as Error,
    );
  });
});
