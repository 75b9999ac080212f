// Documents and hosted KYC links end to end (issue 7, parts 3-4) with every app running: uploads
// streamed to the blob store and checked by content, replace and delete (409 once submitted),
// tenancy, a business that reaches APPROVED once its owners and documents are on file, the KYC
// link's sandbox page used once, and bad input on every route. Every JSON response is checked
// against the reference.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { basic, createApi, type Credentials, type FilePart, type Reply } from './support/api';
import { type Stack, startStack } from './support/stack';
import { type Receiver, startReceiver } from './support/webhook-receiver';

let stack: Stack;
let api: ReturnType<typeof createApi>;
let platformA: Credentials;
let platformB: Credentials;
let receiver: Receiver;

const address = { line1: '1 Market St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };
const personalInfo = (lastName: string, extra: Record<string, unknown> = {}) => ({
  firstName: 'Jane',
  lastName,
  birthDate: '1978-06-15',
  nationality: 'US',
  address,
  idType: 'SSN',
  identifier: '123-45-6789',
  ...extra,
});

const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n', 'latin1'),
  Buffer.alloc(2000, 0x20),
  Buffer.from('\n%%EOF\n'),
]);
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(500, 1)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(500, 2)]);

/** A multipart/form-data request, its JSON reply checked against the reference like api.call's. */
const form = (method: 'POST' | 'PUT', path: string, auth: Credentials, fields: Record<string, string>, file?: FilePart): Promise<Reply> =>
  api.form(method, path, { auth, fields, ...(file ? { file } : {}) });

/** With a PDF unless told otherwise; null sends no file at all. */
const upload = (auth: Credentials, fields: Record<string, string>, file: FilePart | null = { content: PDF, name: 'scan.pdf' }) =>
  form('POST', '/documents', auth, fields, file ?? undefined);

const expectRefused = (reply: Reply, status: number, field?: string) => {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual(expect.objectContaining({ status, code: expect.any(String), message: expect.any(String) }));
  if (field) expect(JSON.stringify(reply.body)).toContain(field);
};

const createBusiness = async (auth: Credentials, registrationNumber = 'REG-100'): Promise<string> => {
  const created = await api.call('POST', '/customers', {
    auth,
    body: {
      customerType: 'BUSINESS',
      address,
      businessInfo: {
        legalName: 'Acme Corp',
        incorporatedOn: '2015-06-01',
        taxId: '12-3456789',
        registrationNumber,
        countriesOfOperation: ['US'],
      },
    },
  });
  expect(created.status).toBe(201);
  return created.body.id;
};

const createIndividual = async (auth: Credentials): Promise<string> => {
  const created = await api.call('POST', '/customers', { auth, body: { customerType: 'INDIVIDUAL', fullName: 'Ada Lovelace' } });
  expect(created.status).toBe(201);
  return created.body.id;
};

/** Files in the stack's blob directory: a refused or deleted upload must leave none behind. */
const storedFiles = async (): Promise<string[]> => readdir(join(stack.env['BLOB_DIR']!, 'documents')).catch(() => []);

beforeAll(async () => {
  stack = await startStack();
  api = createApi(stack, 'documents');
  platformA = (await stack.createPlatform()).token as Credentials;
  platformB = (await stack.createPlatform()).token as Credentials;
  receiver = await startReceiver();
  expect((await api.call('PATCH', '/config', { auth: platformA, body: { webhookEndpoint: receiver.url } })).status).toBe(200);
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

describe('documents', () => {
  it('uploads, gets and lists a document of a customer; the type is read from the content', async () => {
    const customerId = await createIndividual(platformA);
    const before = (await storedFiles()).length;
    const created = await upload(
      platformA,
      {
        documentHolder: customerId,
        documentType: 'PASSPORT',
        country: 'GB',
        documentNumber: 'A1234567',
        issuingAuthority: 'HM Passport Office',
        side: 'FRONT',
      },
      { content: PNG, name: 'passport.pdf' },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      documentHolder: customerId,
      documentType: 'PASSPORT',
      country: 'GB',
      documentNumber: 'A1234567',
      issuingAuthority: 'HM Passport Office',
      side: 'FRONT',
      fileName: 'passport.pdf',
    });
    expect(created.body.id).toMatch(/^Document:[0-9a-f-]{36}$/);
    expect((await storedFiles()).length).toBe(before + 1);

    expect((await api.call('GET', `/documents/${created.body.id}`, { auth: platformA })).body).toEqual(created.body);
    const jpeg = await upload(
      platformA,
      { documentHolder: customerId, documentType: 'DRIVERS_LICENSE', country: 'GB' },
      { content: JPEG, name: 'licence.jpg' },
    );
    expect(jpeg.status).toBe(201);
    const listed = await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerId)}`, { auth: platformA });
    expect(listed.body).toMatchObject({ totalCount: 2, hasMore: false });
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([jpeg.body.id, created.body.id]);
    const paged = await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerId)}&limit=1`, { auth: platformA });
    expect(paged.body).toMatchObject({ hasMore: true, data: [{ id: jpeg.body.id }] });
    const next = await api.call(
      'GET',
      `/documents?documentHolder=${encodeURIComponent(customerId)}&limit=1&cursor=${paged.body.nextCursor}`,
      { auth: platformA },
    );
    expect(next.body).toMatchObject({ hasMore: false, data: [{ id: created.body.id }] });
  });

  it('refuses a .png that is really text (400) and an 11 MB file (413), keeping nothing', async () => {
    const customerId = await createIndividual(platformA);
    const before = await storedFiles();
    const text = await upload(
      platformA,
      { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' },
      { content: Buffer.from('just some text, not an image\n'.repeat(20)), name: 'photo.png' },
    );
    expectRefused(text, 400, 'file');
    expect(text.body.message).toMatch(/PDF, JPEG or PNG/);
    const big = await upload(
      platformA,
      { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' },
      { content: Buffer.concat([PDF, Buffer.alloc(11 * 1024 * 1024)]), name: 'big.pdf' },
    );
    expectRefused(big, 413, 'file');
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await storedFiles()).toEqual(before);
    expect(
      (await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerId)}`, { auth: platformA })).body.totalCount,
    ).toBe(0);
  });

  it('keeps each platform to its own holders and documents (404), and lists nothing of another platform', async () => {
    const customerId = await createIndividual(platformA);
    const businessId = await createBusiness(platformA);
    const ownerId = (
      await api.call('POST', '/beneficial-owners', {
        auth: platformA,
        body: { customerId: businessId, roles: ['UBO'], ownershipPercentage: 30, personalInfo: personalInfo('Owner') },
      })
    ).body.id;
    const mine = await upload(platformA, { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' });
    const before = await storedFiles();

    expectRefused(await upload(platformB, { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' }), 404, 'documentHolder');
    expectRefused(await upload(platformB, { documentHolder: ownerId, documentType: 'PASSPORT', country: 'US' }), 404, 'documentHolder');
    expect(await storedFiles()).toEqual(before);
    expectRefused(await api.call('GET', `/documents/${mine.body.id}`, { auth: platformB }), 404);
    expectRefused(await api.call('DELETE', `/documents/${mine.body.id}`, { auth: platformB }), 404);
    expectRefused(
      await form(
        'PUT',
        `/documents/${mine.body.id}`,
        platformB,
        { documentType: 'PASSPORT', country: 'US' },
        { content: PDF, name: 'x.pdf' },
      ),
      404,
    );
    expect((await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerId)}`, { auth: platformB })).body).toMatchObject({
      data: [],
      totalCount: 0,
    });
    expect(
      (await api.call('GET', '/documents', { auth: platformB })).body.data.some((item: { id: string }) => item.id === mine.body.id),
    ).toBe(false);
    expect((await api.call('GET', `/documents/${mine.body.id}`, { auth: platformA })).status).toBe(200);
  });

  it('deletes a document not yet submitted (204, its file removed); an unknown one is 404', async () => {
    const customerId = await createIndividual(platformA);
    const before = await storedFiles();
    const created = await upload(platformA, { documentHolder: customerId, documentType: 'NATIONAL_ID', country: 'FR' });
    const deleted = await api.call('DELETE', `/documents/${created.body.id}`, { auth: platformA });
    expect(deleted.status).toBe(204);
    expectRefused(await api.call('GET', `/documents/${created.body.id}`, { auth: platformA }), 404);
    expectRefused(await api.call('DELETE', `/documents/${created.body.id}`, { auth: platformA }), 404);
    expect(await storedFiles()).toEqual(before);
  });
});

describe('replacing a document', () => {
  it('swaps file and metadata (200), removes the old file, and a refused replacement changes nothing', async () => {
    const customerId = await createIndividual(platformA);
    const created = await upload(
      platformA,
      { documentHolder: customerId, documentType: 'DRIVERS_LICENSE', country: 'US', side: 'FRONT' },
      { content: JPEG, name: 'front.jpg' },
    );
    const before = await storedFiles();

    const replaced = await form(
      'PUT',
      `/documents/${created.body.id}`,
      platformA,
      { documentType: 'PASSPORT', country: 'CA', documentNumber: 'P-1' },
      { content: PDF, name: 'passport.pdf' },
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: created.body.id,
      documentHolder: customerId,
      documentType: 'PASSPORT',
      country: 'CA',
      documentNumber: 'P-1',
      fileName: 'passport.pdf',
      createdAt: created.body.createdAt,
    });
    expect(replaced.body.side).toBeUndefined();
    expect(Date.parse(replaced.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
    expect((await api.call('GET', `/documents/${created.body.id}`, { auth: platformA })).body).toEqual(replaced.body);
    const after = await storedFiles();
    expect(after.length).toBe(before.length);
    expect(after).not.toEqual(before);

    expectRefused(
      await form(
        'PUT',
        `/documents/${created.body.id}`,
        platformA,
        { documentType: 'PASSPORT', country: 'CA' },
        { content: Buffer.from('plain text'), name: 'x.png' },
      ),
      400,
      'file',
    );
    expectRefused(
      await form(
        'PUT',
        `/documents/${created.body.id}`,
        platformA,
        { documentType: 'PASSPORT', country: 'CA', documentHolder: customerId },
        { content: PDF, name: 'x.pdf' },
      ),
      400,
      'documentHolder',
    );
    expectRefused(await form('PUT', `/documents/${created.body.id}`, platformA, { documentType: 'PASSPORT', country: 'CA' }), 400, 'file');
    expectRefused(
      await form(
        'PUT',
        '/documents/Document:019542f5-b3e7-7d02-8000-000000000001',
        platformA,
        { documentType: 'PASSPORT', country: 'CA' },
        { content: PDF, name: 'x.pdf' },
      ),
      404,
    );
    expect((await api.call('GET', `/documents/${created.body.id}`, { auth: platformA })).body).toEqual(replaced.body);
    expect(await storedFiles()).toEqual(after);
  });
});

describe('a business reaching APPROVED', () => {
  it('without owners or documents gets RESOLVE_ERRORS naming them; with them, APPROVED; its submitted documents cannot be deleted', async () => {
    const businessId = await createBusiness(platformA);
    const first = await api.call('POST', '/verifications', { auth: platformA, body: { customerId: businessId } });
    expect(first.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(first.body.errors.map((error: { type: string }) => error.type)).toEqual([
      'MISSING_BENEFICIAL_OWNER',
      'MISSING_LEGAL_PRESENCE_DOCUMENT',
      'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
      'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
    ]);

    const ownerUs = await api.call('POST', '/beneficial-owners', {
      auth: platformA,
      body: { customerId: businessId, roles: ['UBO', 'CONTROL_PERSON'], ownershipPercentage: 60, personalInfo: personalInfo('Smith') },
    });
    const ownerFr = await api.call('POST', '/beneficial-owners', {
      auth: platformA,
      body: {
        customerId: businessId,
        roles: ['UBO'],
        ownershipPercentage: 30,
        personalInfo: personalInfo('Dupont', { nationality: 'FR', idType: 'NON_US_TAX_ID', identifier: 'FR-99' }),
      },
    });
    expect(ownerFr.status).toBe(201);
    const second = await api.call('POST', '/verifications', { auth: platformA, body: { customerId: businessId } });
    expect(second.body.errors.map((error: { type: string; resourceId: string }) => [error.type, error.resourceId])).toEqual([
      ['MISSING_IDENTITY_DOCUMENT', ownerFr.body.id],
      ['MISSING_LEGAL_PRESENCE_DOCUMENT', businessId],
      ['MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', businessId],
      ['MISSING_PROOF_OF_ADDRESS_DOCUMENT', businessId],
    ]);

    const passport = await upload(
      platformA,
      { documentHolder: ownerFr.body.id, documentType: 'PASSPORT', country: 'FR' },
      { content: JPEG, name: 'passport.jpg' },
    );
    expect(passport.status).toBe(201);
    expect(passport.body.documentHolder).toBe(ownerFr.body.id);
    for (const documentType of ['CERTIFICATE_OF_INCORPORATION', 'SHAREHOLDER_REGISTER']) {
      expect((await upload(platformA, { documentHolder: businessId, documentType, country: 'US' })).status).toBe(201);
    }
    const third = await api.call('POST', '/verifications', { auth: platformA, body: { customerId: businessId } });
    expect(third.body).toMatchObject({
      verificationStatus: 'RESOLVE_ERRORS',
      errors: [{ type: 'MISSING_PROOF_OF_ADDRESS_DOCUMENT', resourceId: businessId }],
    });
    // Not yet sent to the provider: still deletable.
    const spare = await upload(platformA, { documentHolder: businessId, documentType: 'OTHER', country: 'US' });
    expect((await api.call('DELETE', `/documents/${spare.body.id}`, { auth: platformA })).status).toBe(204);

    const bill = await upload(
      platformA,
      { documentHolder: businessId, documentType: 'UTILITY_BILL', country: 'US' },
      { content: PNG, name: 'bill.png' },
    );
    const approved = await api.call('POST', '/verifications', { auth: platformA, body: { customerId: businessId } });
    expect(approved.body).toMatchObject({ customerId: businessId, verificationStatus: 'APPROVED', errors: [] });
    expect((await api.call('GET', `/customers/${businessId}`, { auth: platformA })).body.kybStatus).toBe('APPROVED');
    expect(ownerUs.body.kycStatus).toBe('APPROVED');

    const refused = await api.call('DELETE', `/documents/${bill.body.id}`, { auth: platformA });
    expectRefused(refused, 409);
    expect(refused.body.message).toMatch(/submitted for verification/);
    expect((await api.call('GET', `/documents/${bill.body.id}`, { auth: platformA })).status).toBe(200);
    // A replacement (say after a rejection) is a new file that no verification has seen yet.
    expect(
      (
        await form(
          'PUT',
          `/documents/${bill.body.id}`,
          platformA,
          { documentType: 'ELECTRICITY_BILL', country: 'US' },
          { content: PDF, name: 'bill.pdf' },
        )
      ).status,
    ).toBe(200);
    expect((await api.call('DELETE', `/documents/${bill.body.id}`, { auth: platformA })).status).toBe(204);
  });
});

/** A business with everything on file: an owner who is the control person, and the three company documents. */
const readyBusiness = async (auth: Credentials, registrationNumber: string): Promise<string> => {
  const businessId = await createBusiness(auth, registrationNumber);
  const owner = await api.call('POST', '/beneficial-owners', {
    auth,
    body: { customerId: businessId, roles: ['UBO', 'CONTROL_PERSON'], ownershipPercentage: 100, personalInfo: personalInfo('Founder') },
  });
  expect(owner.status).toBe(201);
  for (const documentType of ['ARTICLES_OF_ASSOCIATION', 'SHAREHOLDER_REGISTER', 'BANK_STATEMENT']) {
    expect((await upload(auth, { documentHolder: businessId, documentType, country: 'US' })).status).toBe(201);
  }
  return businessId;
};

const kycLink = (auth: Credentials, customerId: string, body?: unknown) =>
  api.call('POST', `/customers/${customerId}/kyc-link`, { auth, ...(body !== undefined ? { body } : {}) });

/** The hosted page as a browser uses it: HTML, a form post, redirects not followed. */
const page = async (url: string, decision?: string) => {
  const response = await fetch(url, {
    redirect: 'manual',
    ...(decision !== undefined
      ? {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ decision }).toString(),
        }
      : {}),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    contentType: response.headers.get('content-type'),
    html: await response.text(),
  };
};

describe('hosted KYC link (sandbox)', () => {
  it('resolves a business waiting in PENDING_MANUAL_REVIEW: approve, redirect, and the link works once', async () => {
    const businessId = await readyBusiness(platformA, 'REG-7001');
    const verification = await api.call('POST', '/verifications', { auth: platformA, body: { customerId: businessId } });
    expect(verification.body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    expect((await api.call('GET', `/customers/${businessId}`, { auth: platformA })).body.kybStatus).toBe('PENDING');

    const link = await kycLink(platformA, businessId, { redirectUri: 'https://app.example.com/onboarding/done?step=3' });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ provider: 'SUMSUB', token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(link.body.kycUrl).toBe(`${stack.baseUrl}/kyc/${link.body.token}`);
    expect(Date.parse(link.body.expiresAt)).toBeGreaterThan(Date.now());
    // Issuing a link changes nothing about the customer.
    expect((await api.call('GET', `/customers/${businessId}`, { auth: platformA })).body.kybStatus).toBe('PENDING');

    const opened = await page(link.body.kycUrl);
    expect(opened.status).toBe(200);
    expect(opened.contentType).toMatch(/^text\/html/);
    expect(opened.html).toContain(businessId);
    expect(opened.html).toContain('value="APPROVE"');
    expect(opened.html).toContain('value="REJECT"');

    const approved = await page(link.body.kycUrl, 'APPROVE');
    expect(approved.status).toBe(303);
    expect(approved.location).toBe('https://app.example.com/onboarding/done?step=3&kycStatus=APPROVED');
    expect((await api.call('GET', `/customers/${businessId}`, { auth: platformA })).body.kybStatus).toBe('APPROVED');
    const decided = await api.call('GET', `/verifications/${verification.body.id}`, { auth: platformA });
    expect(decided.body).toMatchObject({ verificationStatus: 'APPROVED', errors: [] });
    // The platform hears of it as of any other outcome.
    expect((await webhookFor('VERIFICATION.APPROVED', verification.body.id)).data).toEqual(decided.body);
    expect((await webhookFor('CUSTOMER.KYB_APPROVED', businessId)).data).toMatchObject({ id: businessId, kybStatus: 'APPROVED' });

    const again = await page(link.body.kycUrl, 'REJECT');
    expect(again.status).toBe(409);
    expect(again.html).toMatch(/already used/);
    expect((await page(link.body.kycUrl)).status).toBe(409);
    expect((await api.call('GET', `/customers/${businessId}`, { auth: platformA })).body.kybStatus).toBe('APPROVED');
  });

  it('rejects an individual without a redirect, and of two racing uses of one link exactly one succeeds', async () => {
    const customerId = await createIndividual(platformA);
    const link = await kycLink(platformA, customerId);
    expect(link.status).toBe(201);
    const [first, second] = await Promise.all([page(link.body.kycUrl, 'REJECT'), page(link.body.kycUrl, 'APPROVE')]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const winner = first.status === 200 ? 'REJECTED' : 'APPROVED';
    expect((await api.call('GET', `/customers/${customerId}`, { auth: platformA })).body.kycStatus).toBe(winner);
  });

  it('refuses bad input: other platforms’ customers, bad redirectUri, production, unknown or malformed tokens, missing decisions', async () => {
    const customerId = await createIndividual(platformA);
    expectRefused(await kycLink(platformB, customerId), 404);
    expectRefused(await kycLink(platformA, 'Customer:019542f5-b3e7-7d02-8000-000000000001'), 404);
    expectRefused(await kycLink(platformA, 'not-an-id'), 404);
    expectRefused(await kycLink(platformA, customerId, { redirectUri: 'ftp://files.example.com/x' }), 400, 'redirectUri');
    expectRefused(await kycLink(platformA, customerId, { redirectUri: 'not a uri' }), 400, 'redirectUri');
    expectRefused(await kycLink(platformA, customerId, { redirectUri: 42 }), 400, 'redirectUri');
    expectRefused(await kycLink(platformA, customerId, { redirectUri: 'https://ok.example.com', colour: 'red' }), 400, 'colour');
    expectRefused(
      await api.call('POST', `/customers/${customerId}/kyc-link`, {
        auth: platformA,
        rawBody: '{"redirectUri":',
        contentType: 'application/json',
      }),
      400,
    );
    expectRefused(
      await api.call('POST', `/customers/${customerId}/kyc-link`, { auth: platformA, rawBody: '[]', contentType: 'application/json' }),
      400,
    );
    const production = (await stack.createPlatform('PRODUCTION')).token as Credentials;
    const productionCustomer = await createIndividual(production);
    expectRefused(await kycLink(production, productionCustomer), 403);

    const unknown = await page(`${stack.baseUrl}/kyc/${'A'.repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.contentType).toMatch(/^text\/html/);
    expect((await page(`${stack.baseUrl}/kyc/short`)).status).toBe(404);
    expect((await page(`${stack.baseUrl}/kyc/${'A'.repeat(43)}`, 'APPROVE')).status).toBe(404);

    const link = await kycLink(platformA, customerId);
    expect((await page(link.body.kycUrl, 'MAYBE')).status).toBe(400);
    const noDecision = await fetch(link.body.kycUrl, { method: 'POST', redirect: 'manual' });
    expect(noDecision.status).toBe(400);
    const json = await fetch(link.body.kycUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"decision":"APPROVE"}',
    });
    expect(json.status).toBe(400);
    // None of the refused attempts used the link up.
    expect((await page(link.body.kycUrl)).status).toBe(200);
    expect((await page(link.body.kycUrl, 'APPROVE')).status).toBe(200);
  });
});

describe('bad input on the document routes', () => {
  let customerId: string;
  let documentId: string;
  beforeAll(async () => {
    customerId = await createIndividual(platformA);
    documentId = (await upload(platformA, { documentHolder: customerId, documentType: 'PASSPORT', country: 'US' })).body.id;
  });

  const fields = (extra: Record<string, string> = {}) => ({
    documentHolder: customerId,
    documentType: 'PASSPORT',
    country: 'US',
    ...extra,
  });

  it.each<[string, () => Record<string, string>, FilePart | null | undefined, string]>([
    ['no file', () => fields(), null, 'file'],
    ['the file in another field', () => fields(), { content: PDF, name: 'a.pdf', field: 'document' }, 'file'],
    ['an empty file', () => fields(), { content: Buffer.alloc(0), name: 'empty.pdf' }, 'file'],
    ['no documentHolder', () => ({ documentType: 'PASSPORT', country: 'US' }), undefined, 'documentHolder'],
    [
      'a documentHolder that is not a customer or owner id',
      () => fields({ documentHolder: 'Platform:019542f5-b3e7-7d02-8000-000000000001' }),
      undefined,
      'documentHolder',
    ],
    ['no documentType', () => ({ documentHolder: customerId, country: 'US' }), undefined, 'documentType'],
    ['an unknown documentType', () => fields({ documentType: 'SELFIE_VIDEO' }), undefined, 'documentType'],
    ['no country', () => ({ documentHolder: customerId, documentType: 'PASSPORT' }), undefined, 'country'],
    ['a country that is not a code', () => fields({ country: 'USA' }), undefined, 'country'],
    ['an unknown side', () => fields({ side: 'TOP' }), undefined, 'side'],
    ['a NUL in documentNumber', () => fields({ documentNumber: 'A\u00001' }), undefined, 'documentNumber'],
    ['an overlong issuingAuthority', () => fields({ issuingAuthority: 'x'.repeat(300) }), undefined, 'issuingAuthority'],
    ['an unknown field', () => fields({ colour: 'red' }), undefined, 'colour'],
  ])('POST /documents refuses %s with a 400 naming it, keeping nothing', async (_name, formFields, file, field) => {
    const before = await storedFiles();
    const reply = await upload(platformA, formFields(), file);
    expectRefused(reply, 400, field);
    expect(await storedFiles()).toEqual(before);
    expect(
      (await api.call('GET', `/documents?documentHolder=${encodeURIComponent(customerId)}`, { auth: platformA })).body.totalCount,
    ).toBe(1);
  });

  it('POST /documents refuses two files, a JSON body and a broken multipart body with 400; an unknown or deleted holder with 404/410', async () => {
    const before = await storedFiles();
    const two = new FormData();
    for (const [name, value] of Object.entries(fields())) two.append(name, value);
    two.append('file', new Blob([PDF]), 'a.pdf');
    two.append('file', new Blob([PDF]), 'b.pdf');
    const twoFiles = await fetch(`${stack.baseUrl}/documents`, { method: 'POST', headers: { authorization: basic(platformA) }, body: two });
    const twoBody = await twoFiles.json();
    api.conformance.check({ method: 'POST', path: '/documents', status: twoFiles.status, body: twoBody });
    expect(twoFiles.status).toBe(400);
    expect(JSON.stringify(twoBody)).toContain('file');

    expectRefused(await api.call('POST', '/documents', { auth: platformA, body: fields() }), 400, 'Content-Type');
    expectRefused(
      await api.call('POST', '/documents', {
        auth: platformA,
        rawBody: '--xyz\r\nContent-Disposition: form-data; name="documentType"\r\n\r\nPASS',
        contentType: 'multipart/form-data; boundary=xyz',
      }),
      400,
    );
    expectRefused(await api.call('POST', '/documents', { auth: platformA, rawBody: 'whatever', contentType: 'multipart/form-data' }), 400);
    expectRefused(
      await upload(platformA, fields({ documentHolder: 'Customer:019542f5-b3e7-7d02-8000-000000000001' })),
      404,
      'documentHolder',
    );
    expectRefused(
      await upload(platformA, fields({ documentHolder: 'BeneficialOwner:019542f5-b3e7-7d02-8000-000000000001' })),
      404,
      'documentHolder',
    );
    const gone = await createIndividual(platformA);
    expect((await api.call('DELETE', `/customers/${gone}`, { auth: platformA })).status).toBe(200);
    expectRefused(await upload(platformA, fields({ documentHolder: gone })), 410);
    expect(await storedFiles()).toEqual(before);
  });

  it('GET, PUT and DELETE: malformed and unknown ids are 404, bad filters and limits 400', async () => {
    expectRefused(await api.call('GET', '/documents/not-an-id', { auth: platformA }), 404);
    expectRefused(await api.call('GET', '/documents/Document:019542f5-b3e7-7d02-8000-000000000001', { auth: platformA }), 404);
    expectRefused(await api.call('DELETE', '/documents/not-an-id', { auth: platformA }), 404);
    expectRefused(
      await form('PUT', '/documents/not-an-id', platformA, { documentType: 'PASSPORT', country: 'US' }, { content: PDF, name: 'x.pdf' }),
      404,
    );
    expectRefused(
      await api.call('PUT', `/documents/${documentId}`, { auth: platformA, body: { documentType: 'PASSPORT', country: 'US' } }),
      400,
      'Content-Type',
    );
    expectRefused(
      await form('PUT', `/documents/${documentId}`, platformA, { documentType: 'PASSPORT' }, { content: PDF, name: 'x.pdf' }),
      400,
      'country',
    );
    expectRefused(await api.call('GET', '/documents?documentHolder=garbage', { auth: platformA }), 400, 'documentHolder');
    expectRefused(await api.call('GET', '/documents?limit=0', { auth: platformA }), 400, 'limit');
    expectRefused(await api.call('GET', '/documents?limit=101', { auth: platformA }), 400, 'limit');
    expectRefused(await api.call('GET', '/documents?cursor=garbage', { auth: platformA }), 400, 'cursor');
    expectRefused(await api.call('GET', '/documents?colour=red', { auth: platformA }), 400, 'colour');
    expect((await api.call('GET', `/documents/${documentId}`, { auth: platformA })).body.documentType).toBe('PASSPORT');
  });

  it('answers 401 without credentials and 403 to a token without MANAGE', async () => {
    expectRefused(await api.call('GET', '/documents', { auth: null }), 401);
    const viewer = await api.call('POST', '/tokens', { auth: platformA, body: { name: 'viewer', permissions: ['VIEW'] } });
    expect(viewer.status).toBe(201);
    const viewOnly = { clientId: viewer.body.clientId, clientSecret: viewer.body.clientSecret };
    expect((await api.call('GET', `/documents/${documentId}`, { auth: viewOnly })).status).toBe(200);
    expectRefused(await upload(viewOnly, fields()), 403);
    expectRefused(await api.call('DELETE', `/documents/${documentId}`, { auth: viewOnly }), 403);
    expectRefused(await kycLink(viewOnly, customerId), 403);
  });
});

describe('read models', () => {
  it('rebuild from the customer streams to rows identical to the live documents and KYC links', async () => {
    // Runs last in this file, after the other tests uploaded, replaced and deleted documents and used links.
    const { MikroORM, PostgreSqlDriver } = await import('@mikro-orm/postgresql');
    const { consoleLogger, createPostgresEventStore, ProjectionRunner } = await import('@corridor/event-store');
    const { services } = await import('../scripts/services');
    const { Client } = await import('pg');
    const info = services['customers']!;
    const db = new Client({ connectionString: stack.database.url });
    await db.connect();
    const rows = async (table: string) => (await db.query(`SELECT * FROM customers.${table} ORDER BY id`)).rows;
    const store = createPostgresEventStore({ connectionString: stack.database.url, schema: info.schema });
    const orm = await MikroORM.init({
      driver: PostgreSqlDriver,
      clientUrl: stack.database.url,
      schema: info.schema,
      entities: info.projections.map((p) => p.entity),
      discovery: { warnWhenNoEntities: false },
    });
    try {
      await stack.stop('customers'); // nothing may write while the live rows are compared
      const liveDocuments = await rows('documents');
      const liveLinks = await rows('kyc_links');
      expect(liveDocuments.length).toBeGreaterThan(10);
      expect(liveLinks.some((row) => row.used_at !== null)).toBe(true);
      const runner = new ProjectionRunner({
        store,
        orm,
        schema: info.schema,
        projections: info.projections,
        logger: consoleLogger('rebuild'),
      });
      await runner.rebuild('documents');
      await runner.rebuild('kyc-links');
      expect(await rows('documents')).toEqual(liveDocuments);
      expect(await rows('kyc_links')).toEqual(liveLinks);
    } finally {
      await orm.close(true);
      await store.close();
      await db.end();
      await stack.start('customers');
    }
  });
});
