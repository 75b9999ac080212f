import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type CustomerWire, subjects, type VerifiedCredential } from '@corridor/contracts';
import { createServiceApp } from '@corridor/messaging';

// The ceiling for the benchmark: the same gateway path, but the services behind it answer at once
// with a canned reply, so what remains is HTTP + auth cache + rate limit + NATS hop + JSON.

const credential: VerifiedCredential = { platformId: 'Platform:bench', tokenId: 'Token:bench', permissions: ['VIEW', 'TRANSACT', 'MANAGE'], environment: 'SANDBOX' };
const customer: CustomerWire = {
  id: 'Customer:0196f1a0-0000-7000-8000-000000000001',
  platformCustomerId: 'bench',
  customerType: 'INDIVIDUAL',
  umaAddress: '$bench@bench.sandbox.uma.money',
  currencies: ['USD'],
  kycStatus: 'APPROVED',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  isDeleted: false,
};

@Controller()
class EchoController {
  @MessagePattern(subjects.platform.auth.verify)
  verify() {
    return credential;
  }

  @MessagePattern(subjects.customers.customer.get)
  get() {
    return customer;
  }

  @MessagePattern(subjects.customers.customer.create)
  create() {
    return customer;
  }

  @MessagePattern(subjects.customers.health)
  customersHealth() {
    return { service: 'customers', status: 'ok' };
  }

  @MessagePattern(subjects.accounts.health)
  accountsHealth() {
    return { service: 'accounts', status: 'ok' };
  }

  @MessagePattern(subjects.platform.health)
  platformHealth() {
    return { service: 'platform', status: 'ok' };
  }
}

@Module({ controllers: [EchoController] })
class EchoModule {}

const main = async () => {
  const app = await createServiceApp(EchoModule, {
    service: 'bench',
    natsUrl: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    subjectPrefix: process.env['CORRIDOR_SUBJECT_PREFIX'] ?? 'bench',
    healthPort: Number(process.env['HEALTH_PORT'] ?? 9099),
    logLevel: process.env['LOG_LEVEL'] ?? 'warn',
  });
  await app.listen();
};

void main();
