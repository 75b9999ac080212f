// Runs the customers service in-process against real PostgreSQL and NATS (a tiny platform service
// answers the settings request) and pins down what only concurrency and storage can show: the
// 100% ownership ceiling under concurrent writers, tenancy of owners and verifications, and a
// verification rendered as of each event of its customer's stream.
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import {
  type BeneficialOwnerWire,
  type CreateBeneficialOwnerData,
  type CustomerWire,
  DomainError,
  type OpenCustomerAccountsReply,
  type Page,
  type PlatformConfigWire,
  type RequestContext,
  subjects,
  type VerificationWire,
  newId,
} from '@corridor/contracts';
import { createServiceApp, ServiceClient } from '@corridor/messaging';
import { requireNats, uniqueRedisPrefix, uniqueSubjectPrefix, useTestDatabase } from '@corridor/testing';
import { randomUUID } from 'node:crypto';
import { AppModule } from '../app.module';
import { loadConfig } from '../config';

const database = useTestDatabase();
const platformA = newId('Platform');
const platformB = newId('Platform');
let customers: INestMicroservice;
let platform: INestMicroservice;
let client: ServiceClient;

@Controller()
class SandboxPlatform {
  @MessagePattern(subjects.platform.platform.get)
  get(): PlatformConfigWire {
    const at = '2026-01-01T00:00:00.000Z';
    return {
      id: 'PlatformConfig:1',
      platformId: platformA,
      environment: 'SANDBOX',
      umaDomain: 'int.sandbox.uma.money',
      proxyUmaSubdomain: 'int',
      supportedCurrencies: [{ currencyCode: 'USD' } as never],
      isRegulatedFinancialInstitution: false,
      createdAt: at,
      updatedAt: at,
    };
  }

  /** The accounts service's part of a create (decision 0027): these owners need no accounts. */
  @MessagePattern(subjects.accounts.internalAccount.openForCustomer)
  openAccounts(): OpenCustomerAccountsReply {
    return { accountIds: [] };
  }
}
@Module({ controllers: [SandboxPlatform] })
class SandboxPlatformModule {}

const contextOf = (platformId: string): RequestContext => {
  const id = randomUUID();
  return { platformId, actor: { kind: 'system', name: 'int-spec' }, requestId: id, correlationId: id };
};
const ask = <T>(subject: string, data: unknown, platformId = platformA) =>
  client.request<T>(subject, data, { context: contextOf(platformId) });
const outcome = <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: DomainError) => ({ ok: false as const, error }),
  );

const owner = (customerId: string, lastName: string, ownershipPercentage: number): CreateBeneficialOwnerData => ({
  customerId,
  roles: ['UBO', 'CONTROL_PERSON'],
  ownershipPercentage,
  personalInfo: {
    firstName: 'Int',
    lastName,
    birthDate: '1980-01-01',
    nationality: 'US',
    address: { line1: '1 St', postalCode: '1', country: 'US' },
    idType: 'SSN',
    identifier: '1',
  },
});
const createBusiness = async (platformId = platformA): Promise<string> =>
  (
    await ask<CustomerWire>(
      subjects.customers.customer.create,
      { customerType: 'BUSINESS', businessInfo: { legalName: 'Int Co', incorporatedOn: '2010-01-01', taxId: '1' } },
      platformId,
    )
  ).id;

beforeAll(async () => {
  await requireNats();
  const subjectPrefix = uniqueSubjectPrefix();
  // A Redis prefix of its own: the bulk-import worker this app starts must not meet other runs' jobs.
  const config = {
    ...loadConfig({ REDIS_KEY_PREFIX: uniqueRedisPrefix() }),
    healthPort: 0,
    databaseUrl: database.url,
    subjectPrefix,
    logLevel: 'warn',
  };
  platform = await createServiceApp(SandboxPlatformModule, {
    service: 'platform',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await platform.listen();
  customers = await createServiceApp(AppModule.register(config), {
    service: 'customers',
    natsUrl: config.natsUrl,
    subjectPrefix,
    logLevel: 'warn',
  });
  await customers.listen();
  client = customers.get(ServiceClient);
}, 60_000);

afterAll(async () => {
  await customers?.close();
  await platform?.close();
});

describe('the 100% ceiling under concurrent writers', () => {
  it('two concurrent owners of 60%: exactly one is refused, with INVALID_INPUT on ownershipPercentage', async () => {
    const customerId = await createBusiness();
    const replies = await Promise.all(
      ['Left', 'Right'].map((name) =>
        outcome(ask<BeneficialOwnerWire>(subjects.customers.beneficialOwner.create, owner(customerId, name, 60))),
      ),
    );
    expect(replies.filter((reply) => reply.ok)).toHaveLength(1);
    const refused = replies.find((reply) => !reply.ok);
    expect(refused?.ok === false && refused.error).toMatchObject({
      code: 'INVALID_INPUT',
      status: 400,
      details: { field: 'ownershipPercentage' },
    });
  });

  it(
    'eight concurrent owners of 20%: never more than 100% recorded, ' + 'every refusal a 4xx, and the list agrees with the replies',
    async () => {
      const customerId = await createBusiness();
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          outcome(ask<BeneficialOwnerWire>(subjects.customers.beneficialOwner.create, owner(customerId, `Owner${index}`, 20))),
        ),
      );
      const accepted = replies.flatMap((reply) => (reply.ok ? [reply.value.id] : []));
      expect(accepted.length).toBeLessThanOrEqual(5);
      for (const reply of replies) if (!reply.ok) expect([400, 409]).toContain(reply.error.status);
      const listed = await ask<Page<BeneficialOwnerWire>>(subjects.customers.beneficialOwner.list, { customerId, limit: 100 });
      expect(listed.data.map((item) => item.id).sort()).toEqual(accepted.sort());
      expect(listed.data.reduce((sum, item) => sum + item.ownershipPercentage, 0)).toBe(accepted.length * 20);
    },
  );
});

describe('tenancy', () => {
  it('another platform gets 404 for owners and verifications and lists none of them', async () => {
    const customerId = await createBusiness();
    const created = await ask<BeneficialOwnerWire>(subjects.customers.beneficialOwner.create, owner(customerId, 'Mine', 30));
    const verification = await ask<VerificationWire>(subjects.customers.verification.submit, { customerId });

    await expect(ask(subjects.customers.beneficialOwner.get, { beneficialOwnerId: created.id }, platformB)).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      ask(subjects.customers.beneficialOwner.update, { beneficialOwnerId: created.id, patch: { ownershipPercentage: 1 } }, platformB),
    ).rejects.toMatchObject({ status: 404 });
    await expect(ask(subjects.customers.beneficialOwner.create, owner(customerId, 'Theirs', 1), platformB)).rejects.toMatchObject({
      code: 'USER_NOT_FOUND',
    });
    await expect(ask(subjects.customers.verification.get, { verificationId: verification.id }, platformB)).rejects.toMatchObject({
      status: 404,
    });
    await expect(ask(subjects.customers.verification.submit, { customerId }, platformB)).rejects.toMatchObject({ code: 'USER_NOT_FOUND' });
    await expect(
      ask(subjects.customers.verification.renderAt, { customerId, verificationId: verification.id, streamPosition: 3 }, platformB),
    ).rejects.toMatchObject({ status: 404 });
    expect(await ask<Page<unknown>>(subjects.customers.beneficialOwner.list, { customerId, limit: 20 }, platformB)).toMatchObject({
      totalCount: 0,
      data: [],
    });
    expect(await ask<Page<unknown>>(subjects.customers.verification.list, { limit: 100 }, platformB)).toMatchObject({
      totalCount: 0,
      data: [],
    });
  });
});

describe('a verification as of an event (webhook payloads)', () => {
  it('renders IN_PROGRESS at its submission and APPROVED at its decision; another verification’s position is a 404', async () => {
    const created = await ask<CustomerWire>(subjects.customers.customer.create, {
      customerType: 'INDIVIDUAL',
      fullName: 'Render Me',
      birthDate: '1980-01-01',
      nationality: 'US',
      address: { line1: '1 St', postalCode: '1', country: 'US' },
    });
    // Stream: 1 created, 2 KYC approved at creation (sandbox), 3 submitted, 4 decided.
    const verification = await ask<VerificationWire>(subjects.customers.verification.submit, { customerId: created.id });
    expect(verification.verificationStatus).toBe('APPROVED');
    const at = (streamPosition: number) =>
      ask<VerificationWire>(subjects.customers.verification.renderAt, {
        customerId: created.id,
        verificationId: verification.id,
        streamPosition,
      });
    expect(await at(3)).toMatchObject({ id: verification.id, verificationStatus: 'IN_PROGRESS', errors: [] });
    expect(await at(4)).toEqual(verification);
    await expect(at(2)).rejects.toMatchObject({ status: 404 });
  });
});
