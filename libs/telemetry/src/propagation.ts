import { context as otelContext, propagation, type Context, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { currentContext, runWithContext, type TelemetryContext } from './context';

// One set of names for every carrier the context crosses: NATS request headers, JetStream message
// headers, BullMQ job data and event metadata. NATS headers are case-sensitive, so both ends use
// these constants. The W3C names (traceparent, tracestate) are OpenTelemetry's propagator's own.
export const REQUEST_ID_HEADER = 'Corridor-Request-Id';
export const CORRELATION_ID_HEADER = 'Corridor-Correlation-Id';
export const CAUSATION_ID_HEADER = 'Corridor-Causation-Id';
export const PLATFORM_ID_HEADER = 'Corridor-Platform-Id';

/** A flat string map a context is written into and read back from. */
export type Carrier = Record<string, string>;
export type CarrierReader = (name: string) => string | undefined;

const tracer = () => trace.getTracer('corridor');

/** The active W3C trace context (`traceparent`, `tracestate`); empty when tracing is off or no span is active. */
export function traceCarrier(active: Context = otelContext.active()): Carrier {
  const carrier: Carrier = {};
  propagation.inject(active, carrier);
  return carrier;
}

/** The current ids and the active trace context, as one carrier (headers of a message, fields of a job). */
export function contextCarrier(ids: TelemetryContext | undefined = currentContext()): Carrier {
  const carrier = traceCarrier();
  if (!ids) return carrier;
  carrier[REQUEST_ID_HEADER] = ids.requestId;
  carrier[CORRELATION_ID_HEADER] = ids.correlationId;
  if (ids.causationId) carrier[CAUSATION_ID_HEADER] = ids.causationId;
  if (ids.platformId) carrier[PLATFORM_ID_HEADER] = ids.platformId;
  return carrier;
}

/** The ids a carrier holds, each falling back to the given one (a message without headers, an old job). */
export function idsFromCarrier(read: CarrierReader, fallback: TelemetryContext): TelemetryContext {
  const platformId = read(PLATFORM_ID_HEADER) || fallback.platformId;
  const causationId = read(CAUSATION_ID_HEADER) || fallback.causationId;
  return {
    requestId: read(REQUEST_ID_HEADER) || fallback.requestId,
    correlationId: read(CORRELATION_ID_HEADER) || fallback.correlationId,
    ...(causationId ? { causationId } : {}),
    ...(platformId ? { platformId } : {}),
  };
}

/** The trace context a carrier holds (its traceparent), as the parent for the next span. */
export function traceParentFrom(read: CarrierReader): Context {
  return propagation.extract(otelContext.active(), undefined, {
    get: (_carrier, key) => read(key),
    keys: () => [],
  });
}

export type SpanOptions = { name: string; kind: SpanKind; attributes?: Attributes; parent?: Context };

/**
 * Runs fn inside a span (a no-op span while tracing is off): an error marks the span and is
 * rethrown unchanged. Telemetry wraps the work; the work never sees it.
 */
export function inSpan<T>(options: SpanOptions, fn: () => Promise<T>): Promise<T> {
  const parent = options.parent ?? otelContext.active();
  return tracer().startActiveSpan(
    options.name,
    { kind: options.kind, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
    async (span) => {
      try {
        return await fn();
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/**
 * Restores what a carrier brought (the ids, with a fallback, and the trace context as the parent
 * of a new span) and runs fn inside both: how a consumer, a job or a NATS handler continues the
 * story that sent it the message.
 */
export function continueFromCarrier<T>(
  read: CarrierReader,
  fallback: TelemetryContext,
  span: Omit<SpanOptions, 'parent'>,
  fn: () => Promise<T>,
): Promise<T> {
  const ids = idsFromCarrier(read, fallback);
  return inSpan({ ...span, parent: traceParentFrom(read) }, () => runWithContext(ids, fn));
}

export { SpanKind };
