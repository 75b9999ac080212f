import { appendFileSync } from 'node:fs';
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { type ReadableSpan, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * Tracing is off unless the operator asks for it, through OpenTelemetry's own variables
 * (OTEL_TRACES_EXPORTER=otlp with OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER...),
 * or CORRIDOR_TRACE_FILE names a file every finished span is appended to as one JSON line (tests, a quick look).
 * Parsed by each app's tracing.ts, the first module its main.ts loads, not by its config.ts:
 * instrumentation patches http, pg and ioredis only if it is in place before they are first loaded,
 * and config.ts loads them.
 */
export type TracingConfig = { enabled: false } | { enabled: true; serviceName: string; file?: string };

export function parseTracingConfig(service: string, env: NodeJS.ProcessEnv): TracingConfig {
  const file = env['CORRIDOR_TRACE_FILE'] || undefined;
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '' && name !== 'none');
  const disabled = (env['OTEL_SDK_DISABLED'] ?? '').toLowerCase() === 'true';
  if (disabled || (!file && exporters.length === 0)) return { enabled: false };
  return { enabled: true, serviceName: env['OTEL_SERVICE_NAME'] || service, ...(file ? { file } : {}) };
}

/** One span as the trace file holds it: enough to rebuild the tree and say which service did what. */
export type SpanLine = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  service: string;
  startedAt: string;
  durationMs: number;
  attributes: Record<string, unknown>;
};

const hrToMs = ([seconds, nanos]: [number, number]): number => seconds * 1_000 + nanos / 1_000_000;

/** Appends each span as a JSON line; synchronous small appends from several processes do not interleave. */
class FileSpanExporter implements SpanExporter {
  constructor(
    private readonly path: string,
    private readonly service: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    try {
      const lines = spans.map((span) => JSON.stringify(this.line(span)) + '\n').join('');
      appendFileSync(this.path, lines);
      done({ code: ExportResultCode.SUCCESS });
    } catch (error) {
      done({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }

  // Each line is written as its span ends; nothing is held back to flush.
  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  private line(span: ReadableSpan): SpanLine {
    const parentSpanId = span.parentSpanContext?.spanId;
    return {
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      ...(parentSpanId ? { parentSpanId } : {}),
      name: span.name,
      kind: span.kind,
      service: this.service,
      startedAt: new Date(hrToMs(span.startTime)).toISOString(),
      durationMs: Math.round(hrToMs(span.duration) * 1000) / 1000,
      attributes: { ...span.attributes },
    };
  }
}

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry for this process when configured (HTTP, Fastify, pg and ioredis spans, W3C
 * propagation), and does nothing otherwise. Call it first in main.ts, before anything loads http, pg or ioredis.
 * A service name instead of a parsed config is apps/payments alone, until its tracing.ts parses its
 * own like the other apps' (decision 0049); then take TracingConfig only.
 */
export function startTracing(config: TracingConfig): TracingConfig {
  if (!config.enabled || sdk) return config;
  sdk = new NodeSDK({
    serviceName: config.serviceName,
    instrumentations: [
      new HttpInstrumentation(),
      // @fastify/otel is built on an older @opentelemetry/instrumentation; the SDK only calls its common surface.
      new FastifyOtelInstrumentation({ registerOnInitialization: true }) as unknown as HttpInstrumentation,
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
    ...(config.file
      ? { spanProcessors: [new SimpleSpanProcessor({ exporter: new FileSpanExporter(config.file, config.serviceName) })] }
      : {}),
  });
  sdk.start();
  // Spans still buffered for the exporter go out on a normal stop.
  const flush = () =>
    void sdk?.shutdown().catch((error: unknown) => {
      // The process is exiting and its logger may be gone: stderr still says which spans were lost.
      process.stderr.write(
        `tracing: the last spans could not be exported at exit: ${error instanceof Error ? error.message : String(error)}\n`,
      );
    });
  process.once('beforeExit', flush);
  return config;
}

/** Flushes and stops the SDK (the shutdown hooks of an app call it). */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
