// Imported first by main.ts: OpenTelemetry must patch http, pg and ioredis before anything loads them.
// config.ts loads them (through @corridor/messaging), so the tracing variables are read here instead.
import { parseTracingConfig, startTracing } from '@corridor/telemetry';

startTracing(parseTracingConfig('payments', process.env));
