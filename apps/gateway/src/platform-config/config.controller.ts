import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiBasicAuth, ApiTags } from '@nestjs/swagger';
import {
  type PlatformConfigWire,
  type RequestContext,
  subjects,
  type UpdateConfigData,
  type WebhookSigningKeyWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { Ctx } from '../auth/request-context';
import { ServiceCall } from '../service-call';
import { PlatformConfigUpdateRequest } from './config.dto';
import { ReferenceOperation } from '../http/openapi/operation';

@ApiTags('Platform configuration')
@ApiBasicAuth()
@Controller('config')
export class ConfigController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('getPlatformConfig')
  @Get()
  @RequiresPermission('VIEW')
  get(@Ctx() context: RequestContext): Promise<PlatformConfigWire> {
    return this.withWebhookKey(this.call.request(subjects.platform.config.get, {}, context), context);
  }

  @ReferenceOperation('updatePlatformConfig')
  @Patch()
  @RequiresPermission('MANAGE')
  update(@Body() body: PlatformConfigUpdateRequest, @Ctx() context: RequestContext): Promise<PlatformConfigWire> {
    return this.withWebhookKey(this.call.request(subjects.platform.config.update, body satisfies UpdateConfigData, context), context);
  }

  /** Extension: the PEM public key that verifies this platform's webhooks (X-Grid-Signature). */
  private async withWebhookKey(
    config: Promise<PlatformConfigWire>,
    context: RequestContext,
  ): Promise<PlatformConfigWire & { webhookPublicKey: string }> {
    const [wire, key] = await Promise.all([
      config,
      this.call.request<WebhookSigningKeyWire>(subjects.webhooks.signingKey.get, {}, context),
    ]);
    return { ...wire, webhookPublicKey: key.publicKey };
  }
}
