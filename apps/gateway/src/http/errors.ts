import { HttpException } from '@nestjs/common';
import { DomainError, type ErrorBody } from '@corridor/contracts';
import { API_VERSION, SUPPORTED_VERSIONS } from '../config';
import type { RouteTable } from './route-table';

// Every error the gateway answers, whatever raised it (a service, a pipe, Fastify's body
// parser, the router), is turned into the one body shape here. Statuses come from the
// category table in libs/contracts; this file only decides the category and code.

export type HttpError = { body: ErrorBody; headers?: Record<string, string> };

export type RequestLine = { method: string; url: string };

const VERSION_SEGMENT = /^\d{4}-\d{2}-\d{2}$/;

const pathOf = (url: string): string => url.split('?')[0] ?? url;

export function notFoundError(request: RequestLine, routes: RouteTable): HttpError {
  const path = pathOf(request.url);
  const version = path.split('/')[1] ?? '';
  if (VERSION_SEGMENT.test(version) && version !== API_VERSION) {
    const supported = SUPPORTED_VERSIONS.join(', ');
    return {
      body: new DomainError(
        'REFERENCE_NOT_FOUND',
        'not_found',
        `API version ${version} is not supported. Use /${API_VERSION}; supported versions: ${supported}.`,
        {
          supportedVersions: SUPPORTED_VERSIONS,
        },
      ).toBody(),
    };
  }
  const allowed = routes.methodsFor(path);
  if (allowed.length > 0) {
    return {
      body: new DomainError(
        'METHOD_NOT_ALLOWED',
        'method_not_allowed',
        `${request.method} is not supported on ${path}. Allowed: ${allowed.join(', ')}.`,
        {
          allowedMethods: allowed,
        },
      ).toBody(),
      headers: { allow: allowed.join(', ') },
    };
  }
  // Under the base path the client found the API but asked for an operation this server does not
  // serve (e.g. a reference operation Corridor has not built yet, such as /cards): say that, not "no route".
  if (path === `/${API_VERSION}` || path.startsWith(`/${API_VERSION}/`)) {
    return {
      body: new DomainError(
        'REFERENCE_NOT_FOUND',
        'not_found',
        `${request.method} ${path} is not an operation this Corridor server supports. Supported operations are listed at /docs.`,
      ).toBody(),
    };
  }
  return {
    body: new DomainError(
      'REFERENCE_NOT_FOUND',
      'not_found',
      `There is no route ${request.method} ${path}. Paths start with /${API_VERSION}.`,
    ).toBody(),
  };
}

const fromHttpException = (exception: HttpException): ErrorBody => {
  const status = exception.getStatus();
  const message = exception.message;
  switch (status) {
    case 400:
      // Fastify's JSON parser and Nest's own 400s land here; the parser message says what broke.
      return invalidBody(`The request body could not be read: ${message}`);
    case 413:
      return new DomainError('PAYLOAD_TOO_LARGE', 'payload_too_large', 'The request body is larger than this API accepts.').toBody();
    case 415:
      return invalidBody('Content-Type must be application/json.');
    case 401:
      return new DomainError('UNAUTHORIZED', 'unauthorized', message).toBody();
    case 403:
      return new DomainError('FORBIDDEN', 'forbidden', message).toBody();
    case 429:
      return new DomainError('RATE_LIMITED', 'rate_limited', message).toBody();
    default:
      return status < 500
        ? { status, code: 'INVALID_INPUT', message }
        : new DomainError('INTERNAL_ERROR', 'internal', 'An unexpected error occurred.').toBody();
  }
};

const invalidBody = (message: string): ErrorBody => new DomainError('INVALID_INPUT', 'validation', message).toBody();

/** Errors other than DomainError and HttpException are bugs: they are logged by the caller. */
export function toHttpError(exception: unknown, request: RequestLine, routes: RouteTable): HttpError & { unexpected?: true } {
  if (exception instanceof DomainError) {
    const retryAfter = exception.details?.['retryAfterSeconds'];
    return { body: exception.toBody(), ...(typeof retryAfter === 'number' ? { headers: { 'retry-after': String(retryAfter) } } : {}) };
  }
  if (exception instanceof HttpException) {
    if (exception.getStatus() === 404) return notFoundError(request, routes);
    return { body: fromHttpException(exception) };
  }
  return {
    body: new DomainError(
      'INTERNAL_ERROR',
      'internal',
      'An unexpected error occurred. It has been logged; retry later or contact support with the X-Request-Id.',
    ).toBody(),
    unexpected: true,
  };
}
