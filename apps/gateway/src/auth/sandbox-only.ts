import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError } from '@corridor/contracts';
import type { AuthenticatedRequest } from './request-context';

/**
 * The sandbox simulators invent money and events, so a production platform's token is refused
 * (403, as the reference answers it). Runs after the global AuthGuard, which sets the credential;
 * a route without one fails closed.
 */
@Injectable()
export class SandboxOnlyGuard implements CanActivate {
  canActivate(host: ExecutionContext): boolean {
    const credential = host.switchToHttp().getRequest<AuthenticatedRequest>().corridor?.credential;
    if (credential?.environment === 'SANDBOX') return true;
    throw new DomainError(
      'FORBIDDEN',
      'forbidden',
      'This sandbox operation is available to sandbox platforms only; this token belongs to a production platform.',
      {
        environment: credential?.environment ?? 'unknown',
      },
    );
  }
}
