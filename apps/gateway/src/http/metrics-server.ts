import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Observability } from '@corridor/contracts';
import { createLogger, natsMetrics, redisHealth, startHealthServer } from '@corridor/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config';
import { RedisConnection } from '../redis';
import { GatewayMetrics } from './gateway-metrics';

/**
 * The gateway's /metrics on a port of its own (GATEWAY_METRICS_PORT), the same health server every
 * service runs: the public port answers API clients only, and Prometheus scrapes a port that a
 * NetworkPolicy or firewall keeps inside. /health/live and /health/ready are served there too.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly metrics: GatewayMetrics,
    private readonly redis: RedisConnection,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    const observability = new Observability();
    observability.addMetrics(this.metrics.registry);
    observability.addMetrics(natsMetrics().registry);
    observability.addPart({ name: 'redis', health: redisHealth(() => this.redis.client) });
    const logger = createLogger('gateway:metrics', { level: this.config.logLevel });
    this.server = await startHealthServer({ service: 'gateway', port: this.config.metricsPort, observability, logger });
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Where it listens (tests ask for port 0 and read the port here). */
  get url(): string | undefined {
    const address = this.server?.address() as AddressInfo | null | undefined;
    return address ? `http://127.0.0.1:${address.port}` : undefined;
  }
}
