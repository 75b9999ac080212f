import { DomainError, type ErrorBody, isErrorBody } from '@corridor/contracts';
import type { Logger } from 'pino';

// How errors cross the NATS hop: a DomainError travels as its body; anything else is an
// internal error whose details stay in the service's log, never in the reply.

export const internalErrorBody = (): ErrorBody => ({
  status: 500,
  code: 'INTERNAL_ERROR',
  message: 'An unexpected error occurred. It has been logged; retry later or contact support with the request id.',
});

/**
 * The database cannot serve right now (out of connections, shutting down, unreachable): a
 * condition of the deployment that passes, so it is a 503 to retry, not an internal error.
 * SQLSTATE classes 08 (connection) and 53 (insufficient resources), 57P01–57P03 (shutdown,
 * cannot connect now), and the socket errors of an unreachable server.
 */
export const isStorageUnavailable = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  // pg-pool's own errors carry no code: every connection busy past the checkout timeout, or a
  // new connection that did not open in time. Both mean "not now", like PostgreSQL's 53xxx.
  const message = (error as { message?: unknown } | null)?.message;
  if (
    typeof message === 'string' &&
    /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout)/.test(message)
  )
    return true;
  if (typeof code !== 'string') return false;
  return /^(08|53)/.test(code) || ['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT'].includes(code);
};

export const storageUnavailableBody = (): ErrorBody => ({
  status: 503,
  code: 'SERVICE_UNAVAILABLE',
  message:
    'Storage is temporarily unavailable; retry shortly, with the same Idempotency-Key so that a request which did go through is not ' +
    'applied twice.',
});

type HttpLikeError = { getStatus(): number; getResponse(): unknown; message: string };

const isHttpLike = (error: unknown): error is HttpLikeError =>
  typeof error === 'object' && error !== null && typeof (error as HttpLikeError).getStatus === 'function';

/** Services may use Nest's ValidationPipe on payloads; its 400 becomes our INVALID_INPUT. */
const fromHttpLike = (error: HttpLikeError): ErrorBody | undefined => {
  if (error.getStatus() !== 400) return undefined;
  const response = error.getResponse() as { message?: unknown };
  const problems = Array.isArray(response?.message) ? response.message.map(String) : [error.message];
  return { status: 400, code: 'INVALID_INPUT', message: problems.join('; '), details: { errors: problems } };
};

export function toErrorBody(error: unknown, logger: Logger): ErrorBody {
  if (error instanceof DomainError) return error.toBody();
  const rpcError =
    typeof (error as { getError?: unknown })?.getError === 'function' ? (error as { getError(): unknown }).getError() : undefined;
  if (isErrorBody(rpcError)) return rpcError;
  const httpBody = isHttpLike(error) ? fromHttpLike(error) : undefined;
  if (httpBody) return httpBody;
  if (isStorageUnavailable(error)) {
    logger.warn({ err: error }, 'Storage unavailable; answered 503.');
    return storageUnavailableBody();
  }
  logger.error({ err: error }, 'Unhandled error in a message handler.');
  return internalErrorBody();
}

/** The client side: rebuilds the error a service replied with. */
export function fromErrorReply(reply: unknown, subject: string): DomainError {
  if (isErrorBody(reply)) return DomainError.fromBody(reply);
  // Nest answers a subject nobody handles with a plain string; that is a deployment mismatch.
  return new DomainError('INTERNAL_ERROR', 'internal', `The service behind ${subject} could not handle the request.`, {
    subject,
  });
}
