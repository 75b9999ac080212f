import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { toHttpError } from './errors';
import type { RouteTable } from './route-table';

/** The gateway's only exception filter: every error leaves as {status, code, message, details?}. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(
    private readonly routes: RouteTable,
    private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const error = toHttpError(exception, { method: request.method, url: request.url }, this.routes);
    if (error.unexpected) {
      this.logger.error(
        { err: exception, requestId: request.id, method: request.method, url: request.url },
        'Unexpected error while handling a request.',
      );
    }
    if (reply.sent) return;
    void reply
      .status(error.body.status)
      .headers({ ...error.headers, 'content-type': 'application/json; charset=utf-8' })
      .send(error.body);
  }
}
