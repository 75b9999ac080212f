// Pins down when tracing starts: never by default, on OpenTelemetry's own variables or a trace file.
import { parseTracingConfig } from './tracing';

describe('parseTracingConfig', () => {
  it('is off by default and with OTEL_TRACES_EXPORTER=none', () => {
    expect(parseTracingConfig('payments', {})).toEqual({ enabled: false });
    expect(parseTracingConfig('payments', { OTEL_TRACES_EXPORTER: 'none' })).toEqual({ enabled: false });
  });

  it('is on with an exporter, named after the app unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(parseTracingConfig('payments', { OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ enabled: true, serviceName: 'payments' });
    expect(parseTracingConfig('payments', { OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'corridor-payments' })).toEqual({
      enabled: true,
      serviceName: 'corridor-payments',
    });
  });

  it('is on with a trace file, and off whatever is set when OTEL_SDK_DISABLED=true', () => {
    expect(parseTracingConfig('gateway', { CORRIDOR_TRACE_FILE: '/tmp/spans.jsonl' })).toEqual({
      enabled: true,
      serviceName: 'gateway',
      file: '/tmp/spans.jsonl',
    });
    expect(parseTracingConfig('gateway', { CORRIDOR_TRACE_FILE: '/tmp/spans.jsonl', OTEL_SDK_DISABLED: 'true' })).toEqual({
      enabled: false,
    });
  });
});
