import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Observability } from '@corridor/contracts';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | undefined;

/**
 * Process CPU, memory, event-loop lag and GC, collected once per process: two health servers in
 * one process (tests) share it rather than registering the same metric names twice.
 */
export const processMetrics = (): Registry => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

export type HealthServerOptions = {
  service: string;
  port: number;
  observability: Observability;
  logger: Logger;
  host?: string;
};

const json = (response: ServerResponse, status: number, body: unknown): void => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

/**
 * Serves, for container probes and Prometheus:
 * - GET /health/live: 200 while the event loop answers (liveness: restart only a wedged process);
 * - GET /health/ready: 200 when every part is ok or degraded, 503 when one is down (readiness);
 * - GET /health: the status code of ready, with {service, status, parts} and each part's details;
 * - GET /metrics: the process metrics and every metrics source of the Observability.
 */
export const startHealthServer = (options: HealthServerOptions): Promise<Server> => {
  const { service, observability, logger } = options;
  const registry = processMetrics();
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET')
      return json(response, 405, { status: 405, code: 'METHOD_NOT_ALLOWED', message: 'Only GET is served here.' });
    if (path === '/health/live') return json(response, 200, { service, status: 'ok' });
    if (path === '/health/ready' || path === '/health') {
      observability.report().then(
        (report) => {
          const status = report.status === 'down' ? 503 : 200;
          json(response, status, path === '/health' ? { service, ...report } : { service, status: report.status });
        },
        (error: unknown) => {
          logger.error({ err: error }, 'The health report failed.');
          json(response, 503, { service, status: 'down', error: String(error) });
        },
      );
      return;
    }
    if (path === '/metrics') {
      Promise.all([registry.metrics(), ...observability.metricsSources.map((source) => source.metrics())]).then(
        (texts) =>
          response.writeHead(200, { 'content-type': registry.contentType }).end(texts.map((text) => text.trimEnd()).join('\n') + '\n'),
        (error: unknown) => {
          logger.error({ err: error }, 'Collecting /metrics failed.');
          response.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
        },
      );
      return;
    }
    json(response, 404, {
      status: 404,
      code: 'REFERENCE_NOT_FOUND',
      message: 'Served here: GET /health, /health/live, /health/ready, /metrics.',
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server));
  });
};
