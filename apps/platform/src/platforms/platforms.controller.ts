import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CLOCK,
  type Clock,
  type CreatePlatformData,
  type CreatePlatformReply,
  DomainError,
  newId,
  type Permission,
  type PlatformConfigWire,
  type ServiceRequest,
  subjects,
  type UpdateConfigData,
} from '@corridor/contracts';
import { EventSourcing } from '@corridor/event-store';
import { createPlatform } from './create-platform';
import { defaultSettings } from './default-settings';
import { platformDecider } from './platform';
import { PlatformEntity, renderConfig } from './platform-view.projection';
import { updateConfig } from './update-config';
import { checkWebhookEndpoint, WEBHOOK_TARGETS, type WebhookTargets } from './webhook-target';
import { issueToken } from '../tokens/issue-token';
import { TOKEN_OPTIONS, type TokenOptions } from '../tokens/token-options';

@Controller()
export class PlatformsController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_TARGETS) private readonly webhookTargets: WebhookTargets,
    @Inject(TOKEN_OPTIONS) private readonly tokenOptions: TokenOptions,
  ) {}

  /** Bootstrap only (the create-platform CLI): a platform and its first token, which can do everything. */
  @MessagePattern(subjects.platform.platform.create)
  async create(@Payload() request: ServiceRequest<CreatePlatformData>): Promise<CreatePlatformReply> {
    const { name, environment, umaDomain } = request.data;
    const platformId = newId('Platform');
    const slug = platformId.slice(-12);
    const data = { platformId, configId: newId('PlatformConfig'), name, environment, settings: defaultSettings(slug, umaDomain) };
    const now = this.clock.now();
    await this.eventSourcing.handle(
      platformId,
      platformDecider,
      (platform) => createPlatform({ type: 'CreatePlatform', data, metadata: { now } }, platform),
      request.context,
      { assumeNew: true },
    );
    const context = { ...request.context, platformId };
    // The operator's bootstrap grants everything; the cap still applies (an empty platform is far below it).
    const all: Permission[] = ['VIEW', 'TRANSACT', 'MANAGE'];
    const bootstrapToken = { name: `${name} bootstrap token`, permissions: all, grantorPermissions: all };
    const token = await issueToken(this.eventSourcing, this.clock, context, bootstrapToken, this.tokenOptions);
    return { platformId, name, environment, token };
  }

  /** Other services ask for a platform's settings (environment, UMA domain, currencies). */
  @MessagePattern(subjects.platform.platform.get)
  async get(@Payload() request: ServiceRequest<Record<string, never>>): Promise<PlatformConfigWire> {
    return this.getConfig(request);
  }

  @MessagePattern(subjects.platform.config.get)
  async getConfig(@Payload() request: ServiceRequest<unknown>): Promise<PlatformConfigWire> {
    const row = await this.eventSourcing.em.findOne(PlatformEntity, { id: request.context.platformId });
    if (!row) throw new DomainError('REFERENCE_NOT_FOUND', 'not_found', `Platform ${request.context.platformId} does not exist.`);
    return renderConfig(row);
  }

  @MessagePattern(subjects.platform.config.update)
  async updateConfig(@Payload() request: ServiceRequest<UpdateConfigData>): Promise<PlatformConfigWire> {
    const { platformId } = request.context;
    const { webhookEndpoint } = request.data;
    // One target policy for every environment: a sandbox token reaches the same network a production one does.
    if (typeof webhookEndpoint === 'string' && !this.webhookTargets.allowPrivate) {
      await checkWebhookEndpoint(webhookEndpoint, this.webhookTargets.resolve);
    }
    const now = this.clock.now();
    await this.eventSourcing.handle(
      platformId,
      platformDecider,
      (platform) => updateConfig({ type: 'UpdateConfig', data: { platformId, changes: request.data }, metadata: { now } }, platform),
      request.context,
    );
    return this.getConfig(request);
  }
}
