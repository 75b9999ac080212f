import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// A client may name its request (X-Request-Id) so its own logs and ours line up; anything that
// could smuggle log-breaking characters or huge values is replaced by a fresh id.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9\-_:.]{1,128}$/;

export const requestIdOf = (request: IncomingMessage): string => {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && ACCEPTABLE_REQUEST_ID.test(header) ? header : randomUUID();
};

export const correlationIdOf = (headers: Record<string, string | string[] | undefined>, requestId: string): string => {
  const header = headers['x-correlation-id'];
  return typeof header === 'string' && ACCEPTABLE_REQUEST_ID.test(header) ? header : requestId;
};
