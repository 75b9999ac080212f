import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Permission, RequestContext, VerifiedCredential } from '@corridor/contracts';

export type AuthenticatedRequest = { corridor?: { context: RequestContext; credential: VerifiedCredential } };

/** The RequestContext the auth guard built for this request. */
export const Ctx = createParamDecorator((_data: unknown, host: ExecutionContext): RequestContext => {
  const request = host.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.corridor) throw new Error('Ctx used on a route without authentication.');
  return request.corridor.context;
});

/** The permissions of the token asking: what it may grant (to a token or an agent) is judged by the owning service. */
export const Grantor = createParamDecorator((_data: unknown, host: ExecutionContext): Permission[] => {
  const request = host.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.corridor) throw new Error('Grantor used on a route without authentication.');
  return request.corridor.credential.permissions;
});
