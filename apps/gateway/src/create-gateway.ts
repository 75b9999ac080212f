import { RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import multipart from '@fastify/multipart';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { invalidInput } from '@corridor/contracts';
import { createLogger, enableBoundedShutdown, nestLogger } from '@corridor/messaging';
import { currentContext } from '@corridor/telemetry';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppModule, type GatewayDependencies } from './app.module';
import { API_VERSION, type GatewayConfig } from './config';
import { HealthController } from './health/health.controller';
import { setupDocs } from './http/docs';
import { GatewayMetrics } from './http/gateway-metrics';
import { contextRequestId, createAccessLog, observeRequests, serverWithRequestContext } from './http/request-telemetry';
import { RouteTable } from './http/route-table';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** The routes whose body is a file upload (multipart/form-data); every other body is JSON. */
const MULTIPART_ROUTES = new Set([
  `POST /${API_VERSION}/documents`,
  `PUT /${API_VERSION}/documents/:documentId`,
  `POST /${API_VERSION}/customers/bulk/csv`,
]);

/** The sandbox's hosted KYC page posts an HTML form (application/x-www-form-urlencoded, parsed by Nest); no API route takes one. */
const FORM_ROUTES = new Set([`POST /${API_VERSION}/kyc/:token`]);

const hasBody = (request: FastifyRequest): boolean =>
  Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;

// A Content-Type without a body describes nothing. Fastify would refuse an empty JSON body before
// any route runs, where the reference makes some bodies optional (OptionalBody); without the
// header the request simply has no body, and each route says whether it needs one.
const dropTypeOfNoBody = (request: FastifyRequest): void => {
  if (BODY_METHODS.has(request.method) && !hasBody(request)) delete request.headers['content-type'];
};

// Fastify would parse text/plain into a string and hand it to validation; refusing anything but
// the route's own media type up front gives the client the real reason, before a large body is read.
const requireMediaType = (request: FastifyRequest): void => {
  if (!BODY_METHODS.has(request.method)) return;
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const route = `${request.method} ${request.routeOptions.url}`;
  if (FORM_ROUTES.has(route) && mediaType === 'application/x-www-form-urlencoded') return;
  const expected = MULTIPART_ROUTES.has(route) ? 'multipart/form-data' : 'application/json';
  if (hasBody(request) && mediaType !== expected) {
    throw invalidInput(`Content-Type must be ${expected}.`, { field: 'Content-Type' });
  }
};

const MAX_PARAM_LENGTH = 1024;

// The router refuses a path it cannot decode (malformed percent-encoding) or a segment longer than
// MAX_PARAM_LENGTH before any Nest code runs; without this its own body would leave, not ours.
const answerRouterError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? `A path segment is longer than ${MAX_PARAM_LENGTH} characters.`
      : error.code === 'FST_ERR_BAD_URL'
        ? 'The path is not valid percent-encoding: encode each reserved or non-ASCII character as %XX of its UTF-8 bytes (for example $ ' +
          'as %24, @ as %40).'
        : error.message;
  void reply
    .status(400)
    .header('x-request-id', request.id)
    .header('x-correlation-id', currentContext()?.correlationId ?? request.id)
    .header('content-type', 'application/json; charset=utf-8')
    .send(invalidInput(message, { field: 'path' }).toBody());
};

/** Builds the gateway without listening, so tests run the same app main.ts serves. */
export async function createGateway(
  config: GatewayConfig,
  overrides: Pick<GatewayDependencies, 'agentTokenVerifier'> = {},
): Promise<NestFastifyApplication> {
  const logger = createLogger('gateway', { level: config.logLevel });
  const routes = new RouteTable();
  const metrics = new GatewayMetrics();
  // maxParamLength: an UMA address in a path segment (GET /receiver/uma/{address}) may be 255
  // characters, and three times that percent-encoded; Fastify's default of 100 would answer 404.
  // trustProxy: request.ip, which the failed-authentication limits count by, is the client behind the
  // operator's proxies (TRUST_PROXY), not the proxy itself.
  // serverFactory: every request runs inside its request context and writes one access-log line
  // (pino-http), so Fastify's own request logging stays off.
  const adapter = new FastifyAdapter({
    serverFactory: serverWithRequestContext(createAccessLog(config.logLevel)),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    genReqId: contextRequestId,
    requestIdHeader: false,
    logger: false,
    maxParamLength: MAX_PARAM_LENGTH,
    frameworkErrors: answerRouterError,
  });
  const fastify = adapter.getInstance();
  // Uploads are read as streams by the routes that take them (request.file()); the limits here
  // are the outer bound, each route sets its own file size limit.
  await fastify.register(multipart, { limits: { files: 1, fields: 50, fieldSize: 64 * 1024, parts: 60 } });
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  observeRequests(fastify, metrics);
  fastify.addHook('onRequest', async (request) => {
    requireMediaType(request);
    dropTypeOfNoBody(request);
  });
  const nestApp = await NestFactory.create<NestFastifyApplication>(
    AppModule.register(config, { routes, logger, metrics, ...overrides }),
    adapter,
    {
      logger: nestLogger(logger),
    },
  );
  const app = enableBoundedShutdown(nestApp, { logger, timeoutMs: config.shutdownTimeoutMs });
  app.setGlobalPrefix(API_VERSION, {
    exclude: ['health', 'health/live', 'health/ready'].map((path) => ({ path, method: RequestMethod.GET })),
  });
  setupDocs(app);
  await app.init();
  // The health report is also reachable under the version prefix, where clients have their base URL.
  fastify.get(`/${API_VERSION}/health`, async (_request, reply) => {
    const report = await app.get(HealthController).report();
    return reply.status(report.status === 'ok' ? 200 : 503).send(report);
  });
  return app;
}
