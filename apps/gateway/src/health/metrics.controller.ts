import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { processMetrics } from '@corridor/messaging';
import { PublicRoute } from '../auth/permissions';
import { AbuseMetrics } from '../rate-limit/abuse-metrics';

/** GET /metrics on the gateway's port, like every service's health port: process metrics and what the edge refused. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly abuse: AbuseMetrics) {}

  @Get()
  @PublicRoute()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  async metrics(): Promise<string> {
    const texts = await Promise.all([processMetrics().metrics(), this.abuse.registry.metrics()]);
    return texts.map((text) => text.trimEnd()).join('\n') + '\n';
  }
}
