// Pins down that the conformance helper accepts reference-shaped bodies, applies the spec's
// overrides, and rejects drift with a message naming the offending field.
import { createConformance } from './conformance';

const customer = {
  id: 'Customer:019542f5-b3e7-1d02-0000-000000000001',
  platformCustomerId: 'ind-9f84e0c2',
  customerType: 'INDIVIDUAL',
  umaAddress: '$jane@corridor.test',
  region: 'US',
  currencies: ['USD'],
  kycStatus: 'APPROVED',
  fullName: 'Jane Smith',
  birthDate: '1990-01-15',
  createdAt: '2025-07-21T17:32:28Z',
  updatedAt: '2025-07-21T17:32:28Z',
  isDeleted: false,
};

describe('conformance', () => {
  const conformance = createConformance();

  it('accepts a valid customer and records the operation', () => {
    conformance.check({ method: 'POST', path: '/2025-10-13/customers', status: 201, body: customer });
    conformance.check({ method: 'GET', path: `/2025-10-13/customers/${customer.id}?x=1`, status: 200, body: customer });
    expect(conformance.report().exercised).toEqual(['createCustomer', 'getCustomerById']);
  });

  it('rejects a wrong enum value and names the field', () => {
    const body = { ...customer, kycStatus: 'MAYBE' };
    expect(() => conformance.check({ method: 'POST', path: '/customers', status: 201, body })).toThrow(/\/kycStatus/);
  });

  it('rejects a success status the reference does not declare', () => {
    expect(() => conformance.check({ method: 'POST', path: '/customers', status: 200, body: customer })).toThrow(
      /createCustomer answered 200/,
    );
  });

  it('checks error bodies, including statuses and codes only the spec adds', () => {
    const error = (status: number, code: string) => ({ status, code, message: 'Explained.' });
    conformance.check({ method: 'POST', path: '/customers', status: 400, body: error(400, 'INVALID_INPUT') });
    conformance.check({ method: 'POST', path: '/customers', status: 413, body: error(413, 'PAYLOAD_TOO_LARGE') });
    conformance.check({ method: 'GET', path: '/no-such-route', status: 404, body: error(404, 'REFERENCE_NOT_FOUND') });
    conformance.check({ method: 'POST', path: '/cards', status: 400, body: error(400, 'CARDHOLDER_KYC_NOT_APPROVED') });
    expect(() => conformance.check({ method: 'POST', path: '/customers', status: 409, body: error(409, 'NOT_A_CODE') })).toThrow(
      /\/code must be equal to one of the allowed values/,
    );
    expect(() =>
      conformance.check({ method: 'POST', path: '/customers', status: 503, body: { status: 500, code: 'X', message: '' } }),
    ).toThrow(/\/status/);
  });

  it('prefers literal path segments over parameters', () => {
    expect(() => conformance.check({ method: 'GET', path: '/customers/internal-accounts', status: 200, body: customer })).toThrow(
      /^listCustomerInternalAccounts 200 does not conform/,
    );
  });

  it('applies the spec overrides to the schema', () => {
    const config = {
      id: 'PlatformConfig:019542f5-b3e7-1d02-0000-000000000003',
      umaDomain: 'corridor.test',
      proxyUmaSubdomain: 'corridor',
      supportedCurrencies: [],
      isRegulatedFinancialInstitution: false,
      createdAt: '2025-06-15T12:30:45Z',
      updatedAt: '2025-06-15T12:30:45Z',
      platformId: 'Platform:019542f5-b3e7-1d02-0000-000000000003',
      environment: 'SANDBOX',
    };
    conformance.check({ method: 'GET', path: '/config', status: 200, body: config });
    expect(() => conformance.check({ method: 'GET', path: '/config', status: 200, body: { ...config, environment: 'STAGING' } })).toThrow(
      /\/environment/,
    );
  });

  it('counts in-scope operations without the stablecoin provider accounts', () => {
    expect(conformance.report().inScopeTotal).toBe(104);
  });
});

describe('conformance of webhooks and extensions', () => {
  const conformance = createConformance();
  const envelope = { id: 'Webhook:019542f5-b3e7-1d02-0000-000000000007', timestamp: '2025-08-15T14:32:00Z' };

  it('validates a webhook body by its type against the reference webhook schema', () => {
    conformance.checkWebhook({ ...envelope, type: 'CUSTOMER.KYC_APPROVED', data: customer });
    conformance.checkWebhook({ ...envelope, type: 'TEST', data: {} });
    expect(() =>
      conformance.checkWebhook({ ...envelope, type: 'CUSTOMER.KYC_APPROVED', data: { ...customer, kycStatus: 'MAYBE' } }),
    ).toThrow('/data/kycStatus');
    expect(() => conformance.checkWebhook({ ...envelope, type: 'CUSTOMER.KYC_APPROVED' })).toThrow("must have required property 'data'");
    expect(() => conformance.checkWebhook({ ...envelope, type: 'NOT.A_TYPE', data: {} })).toThrow('not one the reference');
  });

  it('checks extension operations by their declared schema without counting them as reference coverage', () => {
    const key = {
      publicKey: '-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----\n',
      algorithm: 'ECDSA_P256_SHA256',
      createdAt: '2025-08-15T14:32:00Z',
    };
    conformance.check({ method: 'GET', path: '/2025-10-13/webhooks/signing-key', status: 200, body: key });
    expect(() =>
      conformance.check({ method: 'GET', path: '/2025-10-13/webhooks/signing-key', status: 200, body: { ...key, algorithm: 'RSA' } }),
    ).toThrow('/algorithm');
    expect(conformance.report().exercised).not.toContain('getWebhookSigningKey');
  });
});
