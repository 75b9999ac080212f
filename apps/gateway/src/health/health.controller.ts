import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type DomainError, newUuid, subjects } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { FastifyReply } from 'fastify';
import { PublicRoute } from '../auth/permissions';

const PING_TIMEOUT_MS = 1_000;
const pings = { platform: subjects.platform.health, customers: subjects.customers.health, accounts: subjects.accounts.health, payments: subjects.payments.health, webhooks: subjects.webhooks.health } as const;

export type HealthReport = { status: 'ok' | 'degraded'; services: Record<keyof typeof pings, 'ok' | 'unavailable'> };

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly client: ServiceClient) {}

  @Get()
  @PublicRoute()
  async check(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthReport> {
    const report = await this.report();
    void reply.status(report.status === 'ok' ? 200 : 503);
    return report;
  }

  async report(): Promise<HealthReport> {
    const requestId = newUuid();
    const context = { platformId: '', actor: { kind: 'system' as const, name: 'gateway' }, requestId, correlationId: requestId };
    const entries = await Promise.all(
      Object.entries(pings).map(async ([service, subject]) => {
        const state = await this.client
          .request(subject, {}, { context, timeoutMs: PING_TIMEOUT_MS })
          .then(() => 'ok' as const)
          .catch((_error: DomainError) => 'unavailable' as const);
        return [service, state] as const;
      }),
    );
    const services = Object.fromEntries(entries) as HealthReport['services'];
    return { status: Object.values(services).every((state) => state === 'ok') ? 'ok' : 'degraded', services };
  }
}
