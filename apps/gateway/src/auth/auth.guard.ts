import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainError, isPermitted, type Permission } from '@corridor/contracts';
import { setContextPlatform } from '@corridor/telemetry';
import type { FastifyRequest } from 'fastify';
import { correlationIdOf } from '../http/request-id';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { AuthService } from './auth.service';
import { PUBLIC_ROUTE, REQUIRED_PERMISSION } from './permissions';
import type { AuthenticatedRequest } from './request-context';

/** Authenticates, rate-limits per token and per platform, checks the route's permission, then builds the RequestContext. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(host: ExecutionContext): Promise<boolean> {
    const targets = [host.getHandler(), host.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission | undefined>(REQUIRED_PERMISSION, targets);
    // A route that forgot to declare its permission is refused rather than left open.
    if (!required) throw new Error(`Route ${host.getClass().name}.${host.getHandler().name} declares no permission.`);
    const request = host.switchToHttp().getRequest<FastifyRequest & AuthenticatedRequest>();
    const ids = { requestId: request.id, correlationId: correlationIdOf(request.headers, request.id) };
    const credential = await this.auth.authenticate(request.headers.authorization, { ...ids, address: request.ip });
    // The rest of the request, its access-log line included, names its platform.
    setContextPlatform(credential.platformId);
    await this.rateLimiter.consume(credential.tokenId, credential.platformId);
    if (!isPermitted(credential.permissions, required)) {
      throw new DomainError('FORBIDDEN', 'forbidden', `This token lacks the ${required} permission this operation needs.`, {
        requiredPermission: required,
      });
    }
    request.corridor = {
      credential,
      context: { platformId: credential.platformId, actor: { kind: 'token', tokenId: credential.tokenId }, ...ids },
    };
    return true;
  }
}
