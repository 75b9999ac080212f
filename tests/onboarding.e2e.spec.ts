// Onboarding end to end (issue 7, first slice) with every app running: verifications that name
// what is missing, beneficial owners with their automatic KYC and the 100% ceiling, the
// customer's status following the outcome, CUSTOMER.* and VERIFICATION.* webhooks, bad input on
// every route and tenancy. Every response and webhook is checked against the reference.
import { createApi, type Credentials, type Reply } from './support/api';
import { sharedStack } from './support/shared-stack';
import type { StackView } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

let stack: StackView;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let production: Credentials;
let receiver: Receiver;

const address = { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };
const personalInfo = (lastName: string, extra: Record<string, unknown> = {}) => ({
  firstName: 'Jane',
  lastName,
  birthDate: '1978-06-15',
  nationality: 'US',
  email: 'jane@example.com',
  phoneNumber: '+14155550192',
  address,
  idType: 'SSN',
  identifier: '123-45-6789',
  ...extra,
});
const owner = (customerId: string, lastName: string, ownershipPercentage: number, roles = ['UBO']) => ({
  customerId,
  roles,
  ownershipPercentage,
  personalInfo: personalInfo(lastName),
});

const createBusiness = async (auth: Credentials, registrationNumber = 'REG-100'): Promise<string> => {
  const created = await api.call('POST', '/customers', {
    auth,
    body: {
      customerType: 'BUSINESS',
      businessInfo: { legalName: 'Acme Corp', incorporatedOn: '2015-06-01', taxId: '12-3456789', registrationNumber },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
};

const submit = (auth: Credentials, customerId: string) => api.call('POST', '/verifications', { auth, body: { customerId } });

/** A 4xx with the reference error body whose message or details name the field. */
const expectRefused = (reply: Reply, status: number, field?: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual(expect.objectContaining({ status, code: expect.any(String), message: expect.any(String) }));
  if (field) expect(JSON.stringify(reply.body)).toContain(field);
};

beforeAll(async () => {
  // The production platform's webhooks go to the local receiver: allowed by the deployment setting
  // for private targets (a production platform is otherwise refused a loopback endpoint), which
  // every test stack sets (tests/support/stack.ts).
  stack = await sharedStack();
  api = createApi(stack, 'onboarding');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
  receiver = await startReceiver();
  for (const auth of [platformA, production]) {
    expect((await api.call('PATCH', '/config', { auth, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  api?.saveReport();
  await receiver?.close();
  await stack?.close();
});

const webhookFor = async (type: string, resourceId: string) => {
  await receiver.waitFor(
    (received) => received.some((item) => item.body.type === type && item.body.data?.id === resourceId),
    `${type} for ${resourceId}`,
  );
  const webhook = receiver.received.find((item) => item.body.type === type && item.body.data?.id === resourceId)!;
  api.conformance.checkWebhook(webhook.body);
  return webhook.body;
};

describe('individuals (KYC)', () => {
  it('names every missing field, then approves once they are supplied; GET and the list agree', async () => {
    const created = await api.call('POST', '/customers', {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace' },
    });
    const customerId = created.body.id as string;

    const first = await submit(platformA, customerId);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ customerId, verificationStatus: 'RESOLVE_ERRORS' });
    expect(first.body.id).toMatch(/^Verification:[0-9a-f-]{36}$/);
    expect(first.body.errors.map((error: { field: string }) => error.field)).toEqual([
      'customer.birthDate',
      'customer.nationality',
      'customer.address.line1',
      'customer.address.postalCode',
      'customer.address.country',
    ]);
    expect(
      first.body.errors.every(
        (error: { resourceId: string; type: string }) => error.resourceId === customerId && error.type === 'MISSING_FIELD',
      ),
    ).toBe(true);

    await api.call('PATCH', `/customers/${customerId}`, {
      auth: platformA,
      body: { customerType: 'INDIVIDUAL', birthDate: '1990-12-10', nationality: 'GB', address },
    });
    const second = await submit(platformA, customerId);
    expect(second.body).toMatchObject({ customerId, verificationStatus: 'APPROVED', errors: [] });
    expect(second.body.id).not.toBe(first.body.id);

    expect((await api.call('GET', `/verifications/${second.body.id}`, { auth: platformA })).body).toEqual(second.body);
    const listed = await api.call('GET', `/verifications?customerId=${encodeURIComponent(customerId)}`, { auth: platformA });
    expect(listed.body).toMatchObject({ totalCount: 2, hasMore: false });
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([second.body.id, first.body.id]);
    const approved = await api.call('GET', `/verifications?customerId=${encodeURIComponent(customerId)}&verificationStatus=APPROVED`, {
      auth: platformA,
    });
    expect(approved.body.data.map((item: { id: string }) => item.id)).toEqual([second.body.id]);
    const paged = await api.call('GET', `/verifications?customerId=${encodeURIComponent(customerId)}&limit=1`, { auth: platformA });
    expect(paged.body).toMatchObject({ hasMore: true, data: [{ id: second.body.id }] });
    const next = await api.call(
      'GET',
      `/verifications?customerId=${encodeURIComponent(customerId)}&limit=1&cursor=${paged.body.nextCursor}`,
      { auth: platformA },
    );
    expect(next.body).toMatchObject({ hasMore: false, data: [{ id: first.body.id }] });

    const resolve = await webhookFor('VERIFICATION.RESOLVE_ERRORS', first.body.id);
    expect(resolve.data).toEqual(first.body);
    expect((await webhookFor('VERIFICATION.APPROVED', second.body.id)).data).toEqual(second.body);
  });

  it('in production (no KYC vendor) sends a complete customer to manual review: kycStatus PENDING, with webhooks', async () => {
    const created = await api.call('POST', '/customers', {
      auth: production,
      body: { customerType: 'INDIVIDUAL', fullName: 'Grace Hopper', birthDate: '1980-12-09', nationality: 'US', address },
    });
    expect(created.body.kycStatus).toBe('UNVERIFIED');
    const customerId = created.body.id as string;
    const verification = await submit(production, customerId);
    expect(verification.body).toMatchObject({ verificationStatus: 'PENDING_MANUAL_REVIEW', errors: [] });
    expect((await api.call('GET', `/customers/${customerId}`, { auth: production })).body.kycStatus).toBe('PENDING');

    const customerWebhook = await webhookFor('CUSTOMER.KYC_PENDING', customerId);
    expect(customerWebhook.data).toMatchObject({ id: customerId, kycStatus: 'PENDING' });
    expect((await webhookFor('VERIFICATION.IN_PROGRESS', verification.body.id)).data).toMatchObject({
      verificationStatus: 'IN_PROGRESS',
      errors: [],
    });
    expect((await webhookFor('VERIFICATION.PENDING_MANUAL_REVIEW', verification.body.id)).data).toEqual(verification.body);
  });
});

describe('businesses (KYB) and beneficial owners', () => {
  it('without owners or documents: RESOLVE_ERRORS naming the owners, the fields and each document', async () => {
    const customerId = await createBusiness(platformA);
    const reply = await submit(platformA, customerId);
    expect(reply.status).toBe(200);
    expect(reply.body.verificationStatus).toBe('RESOLVE_ERRORS');
    const types = reply.body.errors.map((error: { type: string; field?: string }) => error.field ?? error.type);
    expect(types).toEqual([
      'customer.businessInfo.countriesOfOperation',
      'customer.address.line1',
      'customer.address.postalCode',
      'customer.address.country',
      'MISSING_BENEFICIAL_OWNER',
      'MISSING_LEGAL_PRESENCE_DOCUMENT',
      'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
      'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);
    expect(
      reply.body.errors.find((error: { type: string }) => error.type === 'MISSING_LEGAL_PRESENCE_DOCUMENT').acceptedDocumentTypes,
    ).toEqual(['CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT']);
    expect((await api.call('GET', `/customers/${customerId}`, { auth: platformA })).body.kybStatus).toBe('UNVERIFIED');
    expect((await webhookFor('VERIFICATION.RESOLVE_ERRORS', reply.body.id)).data).toEqual(reply.body);
  });

  it('adds owners with their sandbox KYC outcome, keeps the total at or below 100%, and re-screens on PATCH', async () => {
    const customerId = await createBusiness(platformA);
    const controller = await api.call('POST', '/beneficial-owners', {
      auth: platformA,
      body: owner(customerId, 'Smith', 60, ['UBO', 'CONTROL_PERSON']),
    });
    expect(controller.status).toBe(201);
    expect(controller.body).toMatchObject({
      customerId,
      roles: ['UBO', 'CONTROL_PERSON'],
      ownershipPercentage: 60,
      kycStatus: 'APPROVED',
      personalInfo: personalInfo('Smith'),
    });
    expect(controller.body.id).toMatch(/^BeneficialOwner:[0-9a-f-]{36}$/);
    const pending = await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Jones001', 30) });
    expect(pending.body.kycStatus).toBe('PENDING');
    const rejected = await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Brown002', 10) });
    expect(rejected.body.kycStatus).toBe('REJECTED');

    expectRefused(
      await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Late', 1) }),
      400,
      'ownershipPercentage',
    );
    expectRefused(
      await api.call('PATCH', `/beneficial-owners/${controller.body.id}`, { auth: platformA, body: { ownershipPercentage: 61 } }),
      400,
      'ownershipPercentage',
    );

    const fixed = await api.call('PATCH', `/beneficial-owners/${rejected.body.id}`, {
      auth: platformA,
      body: { personalInfo: { lastName: 'Brown' } },
    });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({
      kycStatus: 'APPROVED',
      personalInfo: { lastName: 'Brown', firstName: 'Jane' },
      ownershipPercentage: 10,
    });
    expect((await api.call('GET', `/beneficial-owners/${rejected.body.id}`, { auth: platformA })).body).toEqual(fixed.body);

    const listed = await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customerId)}`, { auth: platformA });
    expect(listed.body).toMatchObject({ totalCount: 3, hasMore: false });
    expect(listed.body.data.map((item: { id: string }) => item.id).sort()).toEqual(
      [controller.body.id, pending.body.id, rejected.body.id].sort(),
    );
    const business = await api.call('GET', `/customers/${customerId}`, { auth: platformA });
    expect(business.body.beneficialOwners.map((item: { id: string }) => item.id)).toEqual([
      controller.body.id,
      pending.body.id,
      rejected.body.id,
    ]);

    // With owners and fields complete, only the documents (tests/documents.e2e.spec.ts) keep it from the provider.
    await api.call('PATCH', `/customers/${customerId}`, {
      auth: platformA,
      body: { customerType: 'BUSINESS', address, businessInfo: { countriesOfOperation: ['US'] } },
    });
    const reply = await submit(platformA, customerId);
    expect(reply.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(reply.body.errors.map((error: { type: string }) => error.type)).toEqual([
      'MISSING_LEGAL_PRESENCE_DOCUMENT',
      'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
      'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);
  });

  it('of two concurrent owners that together exceed 100%, refuses exactly one', async () => {
    const customerId = await createBusiness(platformA);
    const replies = await Promise.all([
      api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Left', 60) }),
      api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Right', 60) }),
    ]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 400]);
    const listed = await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customerId)}`, { auth: platformA });
    expect(listed.body.totalCount).toBe(1);
  });

  it('refuses owners for an individual customer, naming customerId', async () => {
    const individual = await api.call('POST', '/customers', { auth: platformA, body: { customerType: 'INDIVIDUAL', fullName: 'Solo' } });
    expectRefused(
      await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(individual.body.id, 'Smith', 10) }),
      400,
      'customerId',
    );
  });
});

describe('bad input', () => {
  let customerId: string;
  let ownerId: string;
  beforeAll(async () => {
    customerId = await createBusiness(platformA);
    ownerId = (await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Valid', 20) })).body.id;
  });

  it('POST /verifications: a missing or malformed customerId is a 400, an unknown one a 404', async () => {
    expectRefused(await api.call('POST', '/verifications', { auth: platformA, body: {} }), 400, 'customerId');
    expectRefused(await api.call('POST', '/verifications', { auth: platformA, body: { customerId: 'Customer:nope' } }), 400, 'customerId');
    expectRefused(await api.call('POST', '/verifications', { auth: platformA, body: { customerId, extra: 1 } }), 400, 'extra');
    expectRefused(
      await api.call('POST', '/verifications', { auth: platformA, body: { customerId: 'Customer:019542f5-b3e7-7d02-8000-000000000001' } }),
      404,
    );
  });

  it('GET /verifications: unknown ids are 404, bad filters and limits 400', async () => {
    expectRefused(await api.call('GET', '/verifications/not-an-id', { auth: platformA }), 404);
    expectRefused(await api.call('GET', '/verifications/Verification:019542f5-b3e7-7d02-8000-000000000001', { auth: platformA }), 404);
    expectRefused(await api.call('GET', '/verifications?verificationStatus=DONE', { auth: platformA }), 400, 'verificationStatus');
    expectRefused(await api.call('GET', '/verifications?limit=0', { auth: platformA }), 400, 'limit');
    expectRefused(await api.call('GET', '/verifications?cursor=garbage', { auth: platformA }), 400, 'cursor');
  });

  it.each<[string, (id: string) => Record<string, unknown>, string]>([
    [
      'a phone number not in E.164',
      (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { phoneNumber: '415-555-0192' }) }),
      'phoneNumber',
    ],
    [
      'an impossible birth date',
      (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { birthDate: '1978-02-30' }) }),
      'birthDate',
    ],
    [
      'a birth date in the future',
      (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { birthDate: '2999-01-01' }) }),
      'personalInfo.birthDate',
    ],
    [
      'a nationality that is not a country code',
      (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { nationality: 'USA' }) }),
      'nationality',
    ],
    ['an unknown idType', (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { idType: 'PASSPORT' }) }), 'idType'],
    ['a missing identifier', (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { identifier: undefined }) }), 'identifier'],
    [
      'an address without a country',
      (id) => ({ ...owner(id, 'X', 1), personalInfo: personalInfo('X', { address: { line1: 'x', postalCode: '1' } }) }),
      'country',
    ],
    ['a fractional percentage', (id) => owner(id, 'X', 1.5), 'ownershipPercentage'],
    ['a percentage above 100', (id) => owner(id, 'X', 101), 'ownershipPercentage'],
    ['no roles', (id) => owner(id, 'X', 1, []), 'roles'],
    ['an unknown role', (id) => owner(id, 'X', 1, ['BOSS']), 'roles'],
    ['a malformed customerId', () => owner('Customer:1', 'X', 1), 'customerId'],
  ])('POST /beneficial-owners refuses %s with a 400 naming the field, and writes nothing', async (_name, body, field) => {
    expectRefused(await api.call('POST', '/beneficial-owners', { auth: platformA, body: body(customerId) }), 400, field);
    expect(
      (await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customerId)}`, { auth: platformA })).body.totalCount,
    ).toBe(1);
  });

  it('POST /beneficial-owners for an unknown customer is a 404', async () => {
    expectRefused(
      await api.call('POST', '/beneficial-owners', {
        auth: platformA,
        body: owner('Customer:019542f5-b3e7-7d02-8000-000000000001', 'X', 1),
      }),
      404,
    );
  });

  it('PATCH /beneficial-owners: nulls, bad formats and unknown members are 400, unknown owners 404', async () => {
    expectRefused(
      await api.call('PATCH', `/beneficial-owners/${ownerId}`, { auth: platformA, body: { personalInfo: { lastName: null } } }),
      400,
      'lastName',
    );
    expectRefused(
      await api.call('PATCH', `/beneficial-owners/${ownerId}`, { auth: platformA, body: { personalInfo: { phoneNumber: '+0123' } } }),
      400,
      'phoneNumber',
    );
    expectRefused(
      await api.call('PATCH', `/beneficial-owners/${ownerId}`, { auth: platformA, body: { ownershipPercentage: -1 } }),
      400,
      'ownershipPercentage',
    );
    expectRefused(await api.call('PATCH', `/beneficial-owners/${ownerId}`, { auth: platformA, body: { customerId } }), 400, 'customerId');
    expectRefused(
      await api.call('PATCH', '/beneficial-owners/BeneficialOwner:019542f5-b3e7-7d02-8000-000000000001', {
        auth: platformA,
        body: { ownershipPercentage: 1 },
      }),
      404,
    );
    expectRefused(await api.call('PATCH', '/beneficial-owners/nope', { auth: platformA, body: { ownershipPercentage: 1 } }), 404);
    expect((await api.call('GET', `/beneficial-owners/${ownerId}`, { auth: platformA })).body).toMatchObject({
      ownershipPercentage: 20,
      personalInfo: { lastName: 'Valid' },
    });
  });

  it('GET /beneficial-owners requires a customerId', async () => {
    expectRefused(await api.call('GET', '/beneficial-owners', { auth: platformA }), 400, 'customerId');
    expectRefused(await api.call('GET', '/beneficial-owners?customerId=abc', { auth: platformA }), 400, 'customerId');
    expectRefused(await api.call('GET', '/beneficial-owners/nope', { auth: platformA }), 404);
  });
});

describe('tenancy', () => {
  it('another platform neither reads, lists, changes nor submits platform A’s customers, owners and verifications', async () => {
    const customerId = await createBusiness(platformA);
    const ownerId = (
      await api.call('POST', '/beneficial-owners', { auth: platformA, body: owner(customerId, 'Private', 40, ['UBO', 'DIRECTOR']) })
    ).body.id;
    const verificationId = (await submit(platformA, customerId)).body.id;

    expectRefused(await api.call('GET', `/verifications/${verificationId}`, { auth: platformB }), 404);
    expect((await api.call('GET', `/verifications?customerId=${encodeURIComponent(customerId)}`, { auth: platformB })).body).toMatchObject({
      totalCount: 0,
      data: [],
    });
    expect(
      (await api.call('GET', '/verifications', { auth: platformB })).body.data.some((item: { id: string }) => item.id === verificationId),
    ).toBe(false);
    expectRefused(await submit(platformB, customerId), 404);

    expectRefused(await api.call('GET', `/beneficial-owners/${ownerId}`, { auth: platformB }), 404);
    expectRefused(await api.call('PATCH', `/beneficial-owners/${ownerId}`, { auth: platformB, body: { ownershipPercentage: 1 } }), 404);
    expect(
      (await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customerId)}`, { auth: platformB })).body,
    ).toMatchObject({ totalCount: 0, data: [] });
    expectRefused(await api.call('POST', '/beneficial-owners', { auth: platformB, body: owner(customerId, 'Intruder', 10) }), 404);

    // Nothing changed for platform A.
    expect((await api.call('GET', `/beneficial-owners/${ownerId}`, { auth: platformA })).body.ownershipPercentage).toBe(40);
    expect(
      (await api.call('GET', `/beneficial-owners?customerId=${encodeURIComponent(customerId)}`, { auth: platformA })).body.totalCount,
    ).toBe(1);
  });
});
