import { DomainError, type ErrorBody, isErrorBody } from '@corridor/contracts';
import type { Logger } from 'pino';

// How errors cross the NATS hop: a DomainError travels as its body; anything else is an
// internal error whose details stay in the service's log, never in the reply.

export const internalErrorBody = (): ErrorBody => ({
  status: 500,
  code: 'INTERNAL_ERROR',
  message: 'An unexpected error occurred. It has been logged; retry later or contact support with the request id.',
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
  const rpcError = typeof (error as { getError?: unknown })?.getError === 'function' ? (error as { getError(): unknown }).getError() : undefined;
  if (isErrorBody(rpcError)) return rpcError;
  const httpBody = isHttpLike(error) ? fromHttpLike(error) : undefined;
  if (httpBody) return httpBody;
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
