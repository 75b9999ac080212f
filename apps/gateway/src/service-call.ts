import { Inject, Injectable } from '@nestjs/common';
import type { RequestContext } from '@corridor/contracts';
import { ServiceClient } from '@corridor/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';

/** ServiceClient with the gateway's request timeout, so controllers stay one line each. */
@Injectable()
export class ServiceCall {
  constructor(
    private readonly client: ServiceClient,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  request<Reply>(subject: string, data: unknown, context: RequestContext, timeoutMs = this.config.requestTimeoutMs): Promise<Reply> {
    return this.client.request<Reply>(subject, data, { context, timeoutMs });
  }
}
