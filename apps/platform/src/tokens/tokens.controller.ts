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
import { createLogger, ServiceClient } from '@corridor/messaging';
import { deleteToken } from './delete-token';
import { ApiTokenEntity, type ApiTokenRow, renderApiToken } from './api-token.projection';
import { PlatformAuthMetrics } from './auth-metrics';
import { FairGate } from './fair-gate';
import { issueToken, releaseTokenSlot } from './issue-token';
import { hashSecret, newClientSecret, verifySecret } from './secrets';
import { tokenDecider } from './token';
import { TOKEN_OPTIONS, type TokenOptions } from './token-options';
import { GateFull, gateRefusal, verifyCredential, type VerifierDeps } from './verify-credential';
import { PlatformEntity } from '../platforms/platform-view.projection';

const notFound = (tokenId: string) => new DomainError('TOKEN_NOT_FOUND', 'not_found', `Token ${tokenId} was not found.`);

@Controller()
export class TokensController {
  constructor(
    private readonly eventSourcing: EventSourcing,
    private readonly client: ServiceClient,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(TOKEN_OPTIONS) private readonly options: TokenOptions,
    private readonly gate: FairGate,
    private readonly metrics: PlatformAuthMetrics,
  ) {}

  private readonly logger = createLogger('platform:auth');
  /** What an unknown client id's secret is checked against: a hash of a random secret with the same scrypt parameters. */
  private readonly dummyHash = hashSecret(newClientSecret());

  @MessagePattern(subjects.platform.token.create)
  create(@Payload() request: ServiceRequest<CreateTokenData>): Promise<ApiTokenWire> {
    return issueToken(this.eventSourcing, this.clock, request.context, request.data, this.options);
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
    return findPage<ApiTokenRow, ApiTokenWire>(
      this.eventSourcing.em,
      ApiTokenEntity,
      where,
      { limit, ...(cursor ? { cursor } : {}) },
      renderApiToken,
    );
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
    await releaseTokenSlot(this.eventSourcing, request.context, tokenId);
    // Every gateway replica caches verified credentials; this broadcast makes them forget this one now.
    this.client.broadcast(subjects.platform.tokenRevoked, { tokenId });
    return {};
  }

  @MessagePattern(subjects.platform.auth.verify)
  async verify(@Payload() request: ServiceRequest<VerifyCredentialData>): Promise<VerifiedCredential> {
    const { clientId, clientSecret } = request.data;
    const unauthorized = new DomainError(
      'UNAUTHORIZED',
      'unauthorized',
      'The API credentials are not valid. Use the token clientId and clientSecret as Basic auth.',
    );
    if (typeof clientId !== 'string' || typeof clientSecret !== 'string') throw unauthorized;
    const dummyHash = await this.dummyHash;
    const deps: VerifierDeps = { findToken: (id) => this.findToken(id), checkSecret: verifySecret, dummyHash, gate: this.gate };
    let credential: VerifiedCredential | null;
    try {
      credential = await verifyCredential(deps, clientId, clientSecret);
    } catch (error) {
      if (!(error instanceof GateFull)) throw error;
      this.metrics.refused.inc({ scope: error.scope });
      const load = this.gate.load(clientId);
      this.logger.warn({ scope: error.scope, clientId: clientId.slice(0, 64), ...load }, 'Secret verification refused: its queue is full.');
      throw gateRefusal(error);
    }
    this.metrics.verifications.inc({ outcome: credential ? 'valid' : 'invalid' });
    if (!credential) throw unauthorized;
    return credential;
  }

  /** The live token with this client id and its platform's environment; a token whose platform is gone is no token. */
  private async findToken(clientId: string): Promise<{ secretHash: string; credential: VerifiedCredential } | null> {
    const em = this.eventSourcing.em;
    const row = await em.findOne(ApiTokenEntity, { clientId });
    const platform = row ? await em.findOne(PlatformEntity, { id: row.platformId }) : null;
    if (!row || !platform) return null;
    const credential = { platformId: row.platformId, tokenId: row.id, permissions: row.permissions, environment: platform.environment };
    return { secretHash: row.secretHash, credential };
  }
}
