import { type ArgumentsHost, Catch, type DynamicModule, type ExceptionFilter, type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Logger } from 'pino';
import { throwError, type Observable } from 'rxjs';
import { toErrorBody } from './error-codec';
import { createLogger, nestLogger } from './logger';
import { PrefixedServerNats } from './prefixed-nats';
import type { ServiceConfig } from './service-config';

export type ServiceAppOptions = {
  service: string;
  natsUrl: string;
  subjectPrefix: string;
  healthPort?: number;
  logLevel?: string;
};

/** Every error leaves a service as {code, status, message, details}; internals stay in the log. */
@Catch()
export class RpcErrorFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    const body = toErrorBody(exception, this.logger);
    return throwError(() => body);
  }
}

export async function createServiceApp(module: Type<unknown> | DynamicModule, options: ServiceAppOptions): Promise<INestMicroservice> {
  const logger = createLogger(options.service, { level: options.logLevel });
  const strategy = new PrefixedServerNats(
    // The queue group makes replicas of one service share requests instead of all answering.
    { servers: options.natsUrl, name: options.service, queue: options.service },
    { subjectPrefix: options.subjectPrefix, logger, ...(options.healthPort !== undefined ? { healthPort: options.healthPort } : {}) },
  );
  const app = await NestFactory.createMicroservice(module, { strategy, logger: nestLogger(logger) });
  app.useGlobalFilters(new RpcErrorFilter(logger));
  app.enableShutdownHooks();
  const service = options.service;
  strategy.addHandler(`${service}.health.ping`, async () => ({ service, status: 'ok' }));
  return app;
}

/** A service's whole main.ts: build the app from its parsed config and start answering NATS. */
export async function runService(module: Type<unknown> | DynamicModule, service: string, config: ServiceConfig): Promise<void> {
  const app = await createServiceApp(module, {
    service,
    natsUrl: config.natsUrl,
    subjectPrefix: config.subjectPrefix,
    healthPort: config.healthPort,
    logLevel: config.logLevel,
  });
  await app.listen();
}
