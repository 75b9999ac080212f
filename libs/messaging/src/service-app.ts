import {
  type ArgumentsHost,
  Catch,
  type DynamicModule,
  type ExceptionFilter,
  type INestMicroservice,
  Module,
  type Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { OBSERVABILITY, type Observability } from '@corridor/contracts';
import type { Logger } from 'pino';
import { throwError, type Observable } from 'rxjs';
import { toErrorBody } from './error-codec';
import { consumerMetrics } from './jetstream';
import { createLogger, nestLogger } from './logger';
import { natsMetrics } from './nats-metrics';
import { ObservabilityModule } from './observability.module';
import { PrefixedServerNats } from './prefixed-nats';
import { natsConnectionOptions, type NatsAuth } from './nats-auth';
import type { ServiceConfig } from './service-config';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, enableBoundedShutdown } from './shutdown';

export type ServiceAppOptions = {
  service: string;
  natsUrl: string;
  natsAuth?: NatsAuth;
  subjectPrefix: string;
  healthPort?: number;
  logLevel?: string;
  /** Bound on a SIGTERM/SIGINT shutdown before the process exits with code 1 (default 10 s). */
  shutdownTimeoutMs?: number;
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
  const service = options.service;
  const strategy = new PrefixedServerNats(
    // The queue group makes replicas of one service share requests instead of all answering.
    { ...natsConnectionOptions(options.natsUrl, options.natsAuth, service), queue: service },
    {
      subjectPrefix: options.subjectPrefix,
      logger,
      service,
      ...(options.healthPort !== undefined ? { healthPort: options.healthPort } : {}),
    },
  );
  // Every service gets the one Observability of its process, whatever its own module imports.
  @Module({ imports: [ObservabilityModule, module] })
  class ServiceRoot {}
  const nestApp = await NestFactory.createMicroservice(ServiceRoot, { strategy, logger: nestLogger(logger) });
  const app = enableBoundedShutdown(nestApp, { logger, timeoutMs: options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS });
  app.useGlobalFilters(new RpcErrorFilter(logger));
  const observability = app.get<Observability>(OBSERVABILITY);
  strategy.observability = observability;
  observability.addPart({ name: 'nats', health: () => strategy.natsHealth() });
  observability.addMetrics(consumerMetrics());
  observability.addMetrics(natsMetrics().registry);
  strategy.addHandler(`${service}.health.ping`, async () => ({ service, status: 'ok' }));
  return app;
}

/** A service's whole main.ts: build the app from its parsed config and start answering NATS. */
export async function runService(module: Type<unknown> | DynamicModule, service: string, config: ServiceConfig): Promise<void> {
  const app = await createServiceApp(module, {
    service,
    natsUrl: config.natsUrl,
    natsAuth: config.natsAuth,
    subjectPrefix: config.subjectPrefix,
    healthPort: config.healthPort,
    logLevel: config.logLevel,
    shutdownTimeoutMs: config.shutdownTimeoutMs,
  });
  if (config.testClockFile !== undefined) {
    createLogger(service).warn({ file: config.testClockFile }, 'Test clock: domain time is the system time plus the offset in this file.');
  }
  await app.listen();
}
