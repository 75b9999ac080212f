export { runWithContext, currentContext, setContextPlatform, continuedContext, contextFields, type TelemetryContext } from './context';
export {
  REQUEST_ID_HEADER,
  CORRELATION_ID_HEADER,
  CAUSATION_ID_HEADER,
  PLATFORM_ID_HEADER,
  traceCarrier,
  contextCarrier,
  idsFromCarrier,
  traceParentFrom,
  inSpan,
  continueFromCarrier,
  SpanKind,
  type Carrier,
  type CarrierReader,
  type SpanOptions,
} from './propagation';
export { startTracing, stopTracing, parseTracingConfig, type TracingConfig, type SpanLine } from './tracing';
export { logFields } from './log-fields';
