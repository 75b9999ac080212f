import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type Page,
  type RedeliverWebhooksReply,
  type RequestContext,
  subjects,
  type TestWebhookResponseWire,
  type WebhookAttemptWire,
  type WebhookDeliveryWire,
  type WebhookSigningKeyWire,
} from '@corridor/contracts';
import { RequiresPermission } from '../auth/permissions';
import { SandboxOnlyGuard } from '../auth/sandbox-only';
import { Ctx } from '../auth/request-context';
import { defined, pageOf } from '../http/list-query';
import { IdPipe } from '../http/validation';
import { ServiceCall } from '../service-call';
import { ListWebhookDeliveriesQuery, RedeliverWebhooksRequest } from './webhooks.dto';
import { ExtensionOperation, ReferenceOperation } from '../http/openapi/operation';

const webhookId = new IdPipe('Webhook', 'REFERENCE_NOT_FOUND', 'Webhook');
const EXTENSION = 'Extension beyond the reference API (Corridor): ';

@ApiTags('Sandbox')
@ApiBasicAuth()
@Controller('sandbox/webhooks')
export class SandboxWebhooksController {
  constructor(private readonly call: ServiceCall) {}

  @ReferenceOperation('sendTestWebhook')
  @Post('test')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiOperation({ summary: 'Send a signed TEST webhook to the configured endpoint now' })
  @UseGuards(SandboxOnlyGuard)
  send(@Ctx() context: RequestContext): Promise<TestWebhookResponseWire> {
    return this.call.request(subjects.webhooks.test.send, {}, context);
  }
}

@ApiTags('Webhooks')
@ApiBasicAuth()
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly call: ServiceCall) {}

  @ExtensionOperation('listWebhookDeliveries')
  @Get('deliveries')
  @RequiresPermission('VIEW')
  @ApiOperation({ summary: `${EXTENSION}the delivery log, by webhook id or resource id` })
  list(@Query() query: ListWebhookDeliveriesQuery, @Ctx() context: RequestContext): Promise<Page<WebhookDeliveryWire>> {
    const { limit: _limit, cursor: _cursor, ...filters } = query;
    return this.call.request(subjects.webhooks.delivery.list, { ...defined(filters), ...pageOf(query) }, context);
  }

  @ExtensionOperation('listWebhookAttempts')
  @Get('deliveries/:webhookId/attempts')
  @RequiresPermission('VIEW')
  @ApiOperation({ summary: `${EXTENSION}every HTTP attempt of one webhook (status code, latency, error)` })
  attempts(@Param('webhookId', webhookId) id: string, @Ctx() context: RequestContext): Promise<{ data: WebhookAttemptWire[] }> {
    return this.call.request(subjects.webhooks.delivery.attempts, { webhookId: id }, context);
  }

  @ExtensionOperation('redeliverWebhooks')
  @Post('redeliver')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiOperation({ summary: `${EXTENSION}send again every finished webhook of a time range (from, to) or of one resource` })
  redeliverMany(@Body() body: RedeliverWebhooksRequest, @Ctx() context: RequestContext): Promise<RedeliverWebhooksReply> {
    return this.call.request(subjects.webhooks.delivery.redeliverMany, defined(body), context);
  }

  @ExtensionOperation('getWebhookSigningKey')
  @Get('signing-key')
  @RequiresPermission('VIEW')
  @ApiOperation({ summary: `${EXTENSION}the public key (PEM SPKI, P-256) that verifies X-Grid-Signature` })
  signingKey(@Ctx() context: RequestContext): Promise<WebhookSigningKeyWire> {
    return this.call.request(subjects.webhooks.signingKey.get, {}, context);
  }

  @ExtensionOperation('rotateWebhookSigningKey')
  @Post('signing-key/rotate')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiOperation({ summary: `${EXTENSION}replace the signing key; the old one is kept as retired` })
  rotate(@Ctx() context: RequestContext): Promise<WebhookSigningKeyWire> {
    return this.call.request(subjects.webhooks.signingKey.rotate, {}, context);
  }

  @ExtensionOperation('redeliverWebhook')
  @Post(':webhookId/redeliver')
  @HttpCode(200)
  @RequiresPermission('MANAGE')
  @ApiOperation({ summary: `${EXTENSION}send one webhook again (same id and body)` })
  redeliver(@Param('webhookId', webhookId) id: string, @Ctx() context: RequestContext): Promise<WebhookDeliveryWire> {
    return this.call.request(subjects.webhooks.delivery.redeliver, { webhookId: id }, context);
  }
}
