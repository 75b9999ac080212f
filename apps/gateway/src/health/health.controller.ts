import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import { type DomainError, newUuid, subjects } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import type { FastifyReply } from 'fastify';
import { PublicRoute } from '../auth/permissions';
import { RedisConnection } from '../redis';
import { ExtensionOperation } from '../http/openapi/operation';

const PING_TIMEOUT_MS = 1_000;
const REDIS_TIMEOUT_MS = 500;
const pings = {
  platform: subjects.platform.health,
  customers: subjects.customers.health,
  accounts: subjects.accounts.health,
  payments: subjects.payments.health,
  webhooks: subjects.webhooks.health,
  cards: subjects.cards.health,
  agents: subjects.agents.health,
} as const;

export type HealthReport = {
  status: 'ok' | 'degraded';
  services: Record<keyof typeof pings, 'ok' | 'unavailable'>;
  redis: 'ok' | 'unavailable';
};

// live and ready are the orchestrator's probes, outside the API's base path; GET /health is also served under it.
@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly client: ServiceClient,
    private readonly redis: RedisConnection,
  ) {}

  /** Liveness: the process answers HTTP. An outage of a service or of Redis must not restart the gateway. */
  @Get('live')
  @ApiExcludeEndpoint()
  @PublicRoute()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: every service answers its NATS ping and Redis its PING (same status code as GET /health). */
  @Get('ready')
  @ApiExcludeEndpoint()
  @PublicRoute()
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<{ status: HealthReport['status'] }> {
    const report = await this.report();
    void reply.status(report.status === 'ok' ? 200 : 503);
    return { status: report.status };
  }

  @ExtensionOperation('getHealth')
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
    const redis = await this.pingRedis();
    const ok = Object.values(services).every((state) => state === 'ok') && redis === 'ok';
    return { status: ok ? 'ok' : 'degraded', services, redis };
  }

  private async pingRedis(): Promise<'ok' | 'unavailable'> {
    const { client } = this.redis;
    if (client.status !== 'ready') return 'unavailable';
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'unavailable'>((resolve) => (timer = setTimeout(() => resolve('unavailable'), REDIS_TIMEOUT_MS)));
    const ping = client.ping().then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
    const state = await Promise.race([ping, timeout]);
    clearTimeout(timer);
    return state;
  }
}
