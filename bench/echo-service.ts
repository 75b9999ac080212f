import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type CustomerWire, subjects, type VerifiedCredential } from '@corridor/contracts';
import { createServiceApp } from '@corridor/messaging';

// The ceiling for the benchmarks: the same gateway path, but the services behind it answer at once
// with a canned reply, so what remains is HTTP + auth cache + rate limit + NATS hop + JSON.

const credential: VerifiedCredential = {
  platformId: 'Platform:bench',
  tokenId: 'Token:bench',
  permissions: ['VIEW', 'TRANSACT', 'MANAGE'],
  environment: 'SANDBOX',
};
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

/**
 * Every service's health subject, so the gateway's /health (which pings each service) reports the
 * echo stack healthy: the services of scripts/apps.json (a new app there is answered without a
 * change here) and every `health` subject the contracts name.
 */
export const healthSubjects = (): string[] => {
  const apps = (JSON.parse(readFileSync(join(__dirname, '../scripts/apps.json'), 'utf8')) as { apps: { name: string }[] }).apps
    .map((app) => app.name)
    .filter((name) => name !== 'gateway');
  const named = subjects as unknown as Record<string, { health?: unknown }>;
  const fromContracts = Object.values(named)
    .map((group) => group?.health)
    .filter((subject): subject is string => typeof subject === 'string');
  const fromApps = apps.map((name) => (typeof named[name]?.health === 'string' ? (named[name].health as string) : `${name}.health.ping`));
  return [...new Set([...fromApps, ...fromContracts])];
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
}

// One handler per health subject, registered the way @MessagePattern registers a method.
healthSubjects().forEach((subject, index) => {
  const name = `health${index}`;
  const service = subject.split('.')[0];
  Object.defineProperty(EchoController.prototype, name, { value: () => ({ service, status: 'ok' }), writable: true, configurable: true });
  MessagePattern(subject)(EchoController.prototype, name, Object.getOwnPropertyDescriptor(EchoController.prototype, name)!);
});

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

if (require.main === module) void main();
