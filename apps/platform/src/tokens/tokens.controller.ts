import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ApiTokenWire,
  type CreateTokenData,
  DomainError,
  type ListTokensData,
  type Page,
  type ServiceRequest,
  subjects,
  type TokenIdData,
  type VerifiedCredential,
  type VerifyCredentialData,
  CLOCK,
  type Clock,
} from '@corridor/contracts';
import { EventSourcing, findPage, timeRange } from '@corridor/event-store';
import { ServiceClient } from '@corridor/messaging';
import { deleteToken } from './delete-token';
import { ApiTokenEntity, type ApiTokenRow, renderApiToken } from './api-token.projection';
import { issueToken } from './issue-token';
import { verifySecret } from './secrets';
import { tokenDecider } from './token';
import { PlatformEntity } from '../platforms/platform-view.projection';

const notFound = (tokenId: string) => new DomainError('TOKEN_NOT_FOUND', 'not_found', `Token ${tokenId} was not found.`);


@Controller()
export class TokensController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @MessagePattern(subjects.platform.token.create)
  create(@Payload() request: ServiceRequest<CreateTokenData>): Promise<ApiTokenWire> {
    return issueToken(this.eventSourcing, this.clock, request.context, request.data);
  }

  @MessagePattern(subjects.platform.token.get)
  async get(@Payload() request: ServiceRequest<TokenIdData>): Promise<ApiTokenWire> {
    const row = await this.eventSourcing.em.findOne(ApiTokenEntity, { id: request.data.tokenId, platformId: request.context.platformId });
    if (!row) throw notFound(request.data.tokenId);
    return renderApiToken(row);
  }

  @MessagePattern(subjects.platform.token.list)
  async list(@Payload() request: ServiceRequest<ListTokensData>): Promise<Page<ApiTokenWire>> {
    const { name, createdAfter, createdBefore, updatedAfter, updatedBefore, limit, cursor } = request.data;
    const where = {
      platformId: request.context.platformId,
      ...(name ? { name } : {}),
      ...timeRange('createdAt', createdAfter, createdBefore),
      ...timeRange('updatedAt', updatedAfter, updatedBefore),
    };
    return findPage<ApiTokenRow, ApiTokenWire>(this.eventSourcing.em, ApiTokenEntity, where, { limit, ...(cursor ? { cursor } : {}) }, renderApiToken);
  }

  @MessagePattern(subjects.platform.token.delete)
  async delete(@Payload() request: ServiceRequest<TokenIdData>): Promise<Record<string, never>> {
    const { tokenId } = request.data;
    const now = this.clock.now();
    await this.eventSourcing.handle(
      tokenId,
      tokenDecider,
      (token) => deleteToken({ type: 'DeleteToken', data: { tokenId, platformId: request.context.platformId }, metadata: { now } }, token),
      request.context,
    );
    // Every gateway replica caches verified credentials; this broadcast makes them forget this one now.
    this.client.broadcast(subjects.platform.tokenRevoked, { tokenId });
    return {};
  }

  @MessagePattern(subjects.platform.auth.verify)
  async verify(@Payload() request: ServiceRequest<VerifyCredentialData>): Promise<VerifiedCredential> {
    const unauthorized = new DomainError('UNAUTHORIZED', 'unauthorized', 'The API credentials are not valid. Use the token clientId and clientSecret as Basic auth.');
    const em = this.eventSourcing.em;
    const row = await em.findOne(ApiTokenEntity, { clientId: request.data.clientId });
    if (!row || !(await verifySecret(request.data.clientSecret, row.secretHash))) throw unauthorized;
    const platform = await em.findOne(PlatformEntity, { id: row.platformId });
    if (!platform) throw unauthorized;
    return { platformId: row.platformId, tokenId: row.id, permissions: row.permissions, environment: platform.environment };
  }
}
