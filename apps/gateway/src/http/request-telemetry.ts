import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { trace } from '@opentelemetry/api';
import { currentContext, runWithContext, type TelemetryContext } from '@corridor/telemetry';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import pinoHttp from 'pino-http';
import { correlationIdOf, requestIdOf } from './request-id';
import type { GatewayMetrics } from './gateway-metrics';

// Every request enters the request context before Fastify sees it, so everything it starts (guards,
// NATS requests, log lines) carries its ids, and leaves exactly one access-log line (pino-http)
// and one sample of the HTTP histogram.

/** What the access log and the metrics need of a request, kept on the raw request. */
type RequestFacts = { ids: TelemetryContext; traceId?: string; route?: string };
const FACTS = Symbol('corridor.request');
type WithFacts = IncomingMessage & { [FACTS]?: RequestFacts };

const factsOf = (request: IncomingMessage): RequestFacts | undefined => (request as WithFacts)[FACTS];

/** A path no route matched: one label value, so probing random paths cannot add series. */
const UNMATCHED = 'unmatched';

/** The access log: one line per request when its response finished (or the connection closed). */
export const createAccessLog = (level: string) =>
  pinoHttp({
    // A logger of its own, without the request-context mixin: the line names the ids itself, read
    // from the request, because a response can finish outside the request's async context.
    logger: pino({ name: 'gateway:access', level }),
    genReqId: (request) => factsOf(request)?.ids.requestId ?? requestIdOf(request),
    quietReqLogger: true,
    quietResLogger: true,
    customAttributeKeys: { reqId: 'requestId', responseTime: 'latencyMs' },
    customLogLevel: (_request, response, error) => (error || response.statusCode >= 500 ? 'error' : 'info'),
    customProps: (request, response) => {
      const facts = factsOf(request);
      return {
        correlationId: facts?.ids.correlationId,
        ...(facts?.ids.platformId ? { platformId: facts.ids.platformId } : {}),
        ...(facts?.traceId ? { traceId: facts.traceId } : {}),
        method: request.method,
        route: facts?.route ?? UNMATCHED,
        status: response.statusCode,
      };
    },
    customSuccessObject: (_request, _response, value: Record<string, unknown>) => ({ latencyMs: value['latencyMs'] }),
    customErrorObject: (_request, _response, error, value: Record<string, unknown>) => ({ latencyMs: value['latencyMs'], err: error }),
    customSuccessMessage: (request, response) => `${request.method} ${factsOf(request)?.route ?? UNMATCHED} ${response.statusCode}`,
    customErrorMessage: (request, response) => `${request.method} ${factsOf(request)?.route ?? UNMATCHED} ${response.statusCode}`,
  });

/**
 * How long an idle keep-alive connection stays open: Fastify's own default, which a serverFactory
 * does not get. Node's 5 s (with a 1 s grace on Node 24) is about the idle timeout of Node's own
 * default client agent and below the 60 s of common load balancers, so a client that sends on a
 * connection just as it turns that old meets the server's close and sees a reset, not an answer.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Fastify's serverFactory: an HTTP server whose every request runs inside its request context
 * (X-Request-Id or a fresh id; X-Correlation-Id or the request id) and passes the access log.
 */
export const serverWithRequestContext =
  (accessLog: ReturnType<typeof createAccessLog>) =>
  (handler: RequestListener): Server => {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const requestId = requestIdOf(request);
      const ids: TelemetryContext = { requestId, correlationId: correlationIdOf(request.headers, requestId), causationId: requestId };
      const span = trace.getActiveSpan()?.spanContext();
      (request as WithFacts)[FACTS] = { ids, ...(span ? { traceId: span.traceId } : {}) };
      runWithContext(ids, () => {
        accessLog(request, response);
        handler(request, response);
      });
    });
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    return server;
  };

/** The request id Fastify gives the request: the one its context already holds. */
export const contextRequestId = (request: IncomingMessage): string => factsOf(request)?.ids.requestId ?? requestIdOf(request);

/**
 * Echoes the ids (X-Request-Id, X-Correlation-Id), records the route template for the log, and
 * observes every answer in the HTTP histogram, refusals before any route included.
 */
export const observeRequests = (fastify: FastifyInstance, metrics: GatewayMetrics): void => {
  fastify.addHook('onRequest', async (request, reply) => {
    const facts = factsOf(request.raw);
    // The context object is the one the request runs in: the platform the guard names later shows here too.
    const ids = currentContext() ?? facts?.ids;
    if (facts && ids) facts.ids = ids;
    if (facts) facts.route = request.routeOptions.url ?? UNMATCHED;
    void reply.header('x-request-id', request.id);
    // A request injected in a test skips the server (and so the context): its ids are derived the same way.
    void reply.header('x-correlation-id', ids?.correlationId ?? correlationIdOf(request.headers, request.id));
  });
  fastify.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    metrics.httpRequests.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
};
