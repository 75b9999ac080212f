import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';

/** One Redis connection for idempotency records and rate-limit counters, with bounded waits. */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  readonly client: Redis;
  private readonly prefix: string;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.client = new Redis(config.redisUrl, {
      connectTimeout: 2_000,
      commandTimeout: 2_000,
      maxRetriesPerRequest: 1,
      lazyConnect: false,
    });
    // Errors surface on the commands that fail; the event only needs a listener so it is not thrown.
    this.client.on('error', () => undefined);
    this.prefix = config.redisKeyPrefix.endsWith(':') ? config.redisKeyPrefix : `${config.redisKeyPrefix}:`;
  }

  key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
