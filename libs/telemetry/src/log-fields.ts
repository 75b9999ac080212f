import { trace } from '@opentelemetry/api';
import { contextFields } from './context';

/**
 * What every log line carries (a pino mixin): the ids of the current work and, while tracing,
 * the trace and span ids, so a line leads to its trace and a trace to its lines.
 */
export function logFields(): Record<string, string> {
  const fields = contextFields();
  const span = trace.getActiveSpan()?.spanContext();
  if (span && span.traceId !== '00000000000000000000000000000000') {
    fields['traceId'] = span.traceId;
    fields['spanId'] = span.spanId;
  }
  return fields;
}
