import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { RequestContext, VerifiedCredential } from '@corridor/contracts';

export type AuthenticatedRequest = { corridor?: { context: RequestContext; credential: VerifiedCredential } };

/** The RequestContext the auth guard built for this request. */
export const Ctx = createParamDecorator((_data: unknown, host: ExecutionContext): RequestContext => {
  const request = host.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.corridor) throw new Error('Ctx used on a route without authentication.');
  return request.corridor.context;
});
